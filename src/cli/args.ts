import { parseArgs } from 'node:util';
import { parseUuid } from '../platform/uuid.ts';

/** The command line is wrong: exit 2, with the message and the usage that applies. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  /** The usage lines to show below the message. */
  readonly usage: readonly string[];

  constructor(message: string, usage: readonly string[]) {
    super(message);
    this.usage = usage;
  }
}

/** An option that may be given more than once; `Args.strings` reads every value, in order. */
export interface RepeatableOption {
  readonly name: string;
  readonly repeatable: true;
}

/** Declares `--name` repeatable: `--grant a --grant b`. */
export const repeatable = (name: string): RepeatableOption => ({ name, repeatable: true });

/** An option that takes no value (`--password-stdin`); `Args.flag` reads whether it was given. */
export interface FlagOption {
  readonly name: string;
  readonly flag: true;
}

export const flag = (name: string): FlagOption => ({ name, flag: true });

/**
 * A command's own options; each takes a value but a `flag(name)`. A bare name may be given once
 * (a second time replaces the first, as parseArgs does); a `repeatable(name)` any number of times.
 */
export type OptionSpec = readonly (string | RepeatableOption | FlagOption)[];

/** The options of one invocation, checked on access: every accessor throws UsageError. */
export interface Args {
  readonly json: boolean;
  readonly help: boolean;
  string(name: string): string | undefined;
  /** Every value of a repeatable option, in the order given; empty when it is absent. */
  strings(name: string): string[];
  /** Whether a flag option was given. */
  flag(name: string): boolean;
  required(name: string): string;
  uuid(name: string): string | undefined;
  requiredUuid(name: string): string;
  choice<T extends string>(name: string, values: readonly T[]): T | undefined;
  requiredChoice<T extends string>(name: string, values: readonly T[]): T;
  /** Every value of a repeatable option, each one of `values`. */
  choices<T extends string>(name: string, values: readonly T[]): T[];
  email(name: string): string;
  positiveInteger(name: string): number | undefined;
  /** The word the command takes besides its options (`mnemo import FILE`), when it takes one. */
  readonly operand: string | undefined;
  /** Throws UsageError with `message` and this command's usage. */
  fail(message: string): never;
}

// Deliberately loose: one @, no white space, a dot-separated domain. Whether the address
// receives mail is not the store's business.
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)*$/;
const POSITIVE_INTEGER = /^[1-9][0-9]*$/;

/**
 * Parses `argv` (the words after the command) against the command's options plus `--json` and
 * `--help`. Unknown options, options without their value and positional words are usage errors,
 * but for the one word named `operand` (required) of a command that takes one.
 */
export function parseCommandArgs(
  argv: readonly string[],
  spec: OptionSpec,
  usage: string,
  operand?: string,
): Args {
  const fail = (message: string): never => {
    throw new UsageError(message, [usage]);
  };
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: true }> = {
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  };
  for (const option of spec) {
    if (typeof option === 'string') options[option] = { type: 'string' };
    else if ('flag' in option) options[option.name] = { type: 'boolean' };
    else options[option.name] = { type: 'string', multiple: true };
  }
  let values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      options,
      strict: true,
      allowPositionals: operand !== undefined,
    }));
  } catch (error) {
    return fail(parseArgsMessage(error));
  }
  const [given, extra] = positionals;
  if (extra !== undefined) fail(`unexpected argument "${extra}"`);
  // --help needs no operand: it only asks how to give one.
  if (operand !== undefined && given === undefined && values.help !== true) {
    fail(`${operand} is required`);
  }

  const nonEmpty = (name: string, value: string): string =>
    value.trim() === '' ? fail(`--${name} must not be empty`) : value;
  const string = (name: string): string | undefined => {
    const value = values[name];
    if (Array.isArray(value))
      throw new TypeError(`--${name} is repeatable: read it with strings()`);
    return typeof value === 'string' ? nonEmpty(name, value) : undefined;
  };
  const strings = (name: string): string[] => {
    const value = values[name];
    if (value === undefined) return [];
    if (!Array.isArray(value)) throw new TypeError(`--${name} is not declared repeatable`);
    return value.map((one) => nonEmpty(name, String(one)));
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], value: string): T =>
    allowed.find((a) => a === value) ??
    fail(`--${name} must be one of ${allowed.join(', ')}, not "${value}"`);
  const required = (name: string): string => string(name) ?? fail(`--${name} is required`);
  const uuid = (name: string): string | undefined => {
    const value = string(name);
    if (value === undefined) return undefined;
    return parseUuid(value) ?? fail(`--${name} must be a UUID, not "${value}"`);
  };
  const choice = <T extends string>(name: string, allowed: readonly T[]): T | undefined => {
    const value = string(name);
    return value === undefined ? undefined : oneOf(name, allowed, value);
  };

  return {
    json: values.json === true,
    help: values.help === true,
    string,
    strings,
    flag: (name) => values[name] === true,
    required,
    uuid,
    requiredUuid: (name) => uuid(name) ?? fail(`--${name} is required`),
    choice,
    requiredChoice: (name, allowed) => choice(name, allowed) ?? fail(`--${name} is required`),
    choices: (name, allowed) => strings(name).map((value) => oneOf(name, allowed, value)),
    email(name) {
      const value = required(name);
      if (value.length > 254 || !EMAIL.test(value)) {
        fail(`--${name} must be an email address, not "${value}"`);
      }
      return value;
    },
    positiveInteger(name) {
      const value = string(name);
      if (value === undefined) return undefined;
      const number = Number(value);
      if (!POSITIVE_INTEGER.test(value) || !Number.isSafeInteger(number)) {
        fail(`--${name} must be a positive integer, not "${value}"`);
      }
      return number;
    },
    operand: given,
    fail,
  };
}

/** parseArgs' messages, shortened to what a person at a terminal needs. */
function parseArgsMessage(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const option = /'([^']+)'/.exec(message)?.[1];
    return option ? `unknown option ${option}` : message;
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    const word = /'([^']+)'/.exec(message)?.[1];
    return word ? `unexpected argument "${word}"` : message;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const option = /'(--?[\w-]+)/.exec(message)?.[1];
    if (option && message.includes('argument missing')) return `${option} needs a value`;
    if (option && message.includes('ambiguous')) {
      return `${option} needs a value (write ${option}=-… for one that starts with a dash)`;
    }
    if (option && message.includes('does not take')) return `${option} does not take a value`;
  }
  return message;
}
