import type { UsageError } from './args.ts';
import type { Command, Outcome } from './command.ts';

const write = (stream: NodeJS.WriteStream, text: string) =>
  stream.write(text.endsWith('\n') ? text : `${text}\n`);

/** `--json`: exactly one JSON object on stdout; otherwise the text, which may be empty. */
export function printOutcome(outcome: Outcome, json: boolean): void {
  if (json) write(process.stdout, JSON.stringify(outcome.json));
  else if (outcome.text !== '') write(process.stdout, outcome.text);
}

/** A command that could not do its work: the reason on stderr, and as `{"error"}` with --json. */
export function printFailure(message: string, json: boolean): void {
  if (json) write(process.stdout, JSON.stringify({ error: message }));
  write(process.stderr, `mnemo: ${message}`);
}

/** The command line is wrong: the message and usage on stderr, and as `{"error"}` with --json. */
export function printUsageError(error: UsageError, json: boolean): void {
  if (json) write(process.stdout, JSON.stringify({ error: error.message }));
  const lines = error.usage.map((line, i) => `${i === 0 ? 'usage: ' : '       '}${line}`);
  write(process.stderr, [`mnemo: ${error.message}`, ...lines].join('\n'));
}

export function printHelp(text: string): void {
  write(process.stdout, text);
}

/** Each command's usage line with its summary below, for `mnemo help`. */
export function describeCommands(commands: readonly Command[]): string {
  return commands.map((c) => `  ${c.usage}\n      ${c.summary}`).join('\n');
}
