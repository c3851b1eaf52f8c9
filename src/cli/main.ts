import { parseCommandArgs, UsageError } from './args.ts';
import { auditList } from './audit.ts';
import { clientCreate } from './client.ts';
import {
  type Command,
  Interrupted,
  InvalidConfiguration,
  untilInterrupted,
  withStore,
} from './command.ts';
import { exportMemories } from './export.ts';
import { importMemories } from './import.ts';
import { keysRotate } from './keys.ts';
import { login, logout, whoami } from './login.ts';
import { mcp } from './mcp.ts';
import { memberAdd, memberRemove } from './member.ts';
import { orgCreate, orgSet } from './org.ts';
import {
  describeCommands,
  printFailure,
  printHelp,
  printOutcome,
  printUsageError,
} from './output.ts';
import { projectCreate, projectGrant, projectRevoke } from './project.ts';
import { migrate, serve } from './serve.ts';
import { token } from './token.ts';
import { userCreate, userErase, userSet } from './user.ts';

/** Every command, in the order `mnemo help` lists them. */
const COMMANDS: readonly Command[] = [
  serve,
  migrate,
  orgCreate,
  orgSet,
  userCreate,
  userSet,
  userErase,
  memberAdd,
  memberRemove,
  projectCreate,
  projectGrant,
  projectRevoke,
  clientCreate,
  keysRotate,
  auditList,
  token,
  login,
  whoami,
  logout,
  exportMemories,
  importMemories,
  mcp,
];

const HELP_FOOTER = `Every command but serve, export and mcp also takes --json (print one JSON object on stdout) and --help.
Commands work on the store the server uses: MNEMO_DATABASE_URL (default sqlite:./data/mnemo.db),
with the schema brought up to date first; the server sees every change at once. mnemo token signs
for MNEMO_PUBLIC_URL's issuer. login, whoami, logout, export, import and mcp talk to a server
instead: the one at --url, else MNEMO_PUBLIC_URL's (or HOST and PORT's) when set, else the one
mnemo login signed in to last, else http://127.0.0.1:8080. They keep a credential per server in
$XDG_CONFIG_HOME/mnemo/credentials.json (default ~/.config/mnemo/), with the server signed in to
last, which logout forgets with its credential. See docs/configuration.md and, for mcp, docs/mcp.md.
Exit status: 0 done, 1 the command could not be carried out, 2 the command line is wrong.`;

const fullHelp = () =>
  `usage: mnemo <command> [options]\n\n${describeCommands(COMMANDS)}\n  mnemo help [COMMAND]\n      this text, or the commands that start with COMMAND\n\n${HELP_FOOTER}`;

const usageOf = (commands: readonly Command[]) => commands.map((c) => c.usage);

const isHelpFlag = (word: string) => word === '--help' || word === '-h';

/** The leading words of `argv`: the command's name, before any option. */
function commandWords(argv: readonly string[]): string[] {
  const end = argv.findIndex((word) => word.startsWith('-'));
  return argv.slice(0, end === -1 ? argv.length : end);
}

/** The commands whose name starts with the longest run of `words` that any command has. */
function closest(words: readonly string[]): { matched: number; commands: Command[] } {
  for (let matched = words.length; matched > 0; matched--) {
    const prefix = words.slice(0, matched);
    const commands = COMMANDS.filter((c) => prefix.every((word, i) => c.path[i] === word));
    if (commands.length > 0) return { matched, commands };
  }
  return { matched: 0, commands: [...COMMANDS] };
}

/** Finds the command `argv` names; `help` when it asks for help about commands. */
function resolve(argv: readonly string[]): { command: Command; rest: string[] } | { help: string } {
  const first = argv[0];
  if (first === undefined) throw new UsageError('no command given', usageOf(COMMANDS));
  if (first === 'help' || (argv.length === 1 && isHelpFlag(first))) {
    const words = argv.slice(1);
    if (words.length === 0) return { help: fullHelp() };
    const { matched, commands } = closest(words);
    if (matched < words.length) {
      throw new UsageError(`unknown command "${words.join(' ')}"`, usageOf(commands));
    }
    return { help: describeCommands(commands) };
  }
  const words = commandWords(argv);
  const command = COMMANDS.find((c) => c.path.every((word, i) => words[i] === word));
  if (command) return { command, rest: argv.slice(command.path.length) };
  const { matched, commands } = closest(words);
  if (matched === words.length && words.length > 0) {
    if (argv.some(isHelpFlag)) return { help: describeCommands(commands) };
    throw new UsageError(`incomplete command "${words.join(' ')}"`, usageOf(commands));
  }
  const named =
    words.length > 0 ? `unknown command "${words.join(' ')}"` : `unknown option ${first}`;
  throw new UsageError(named, usageOf(commands));
}

/**
 * Whether the words ask for JSON, read before they are parsed: a command line too wrong to parse
 * still answers a script that asked for JSON in JSON. Words after `--` are not options.
 */
function asksForJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

/**
 * Runs the `mnemo` command line and returns the exit status: 0 done, 1 the command could not be
 * carried out (the reason on stderr), 2 the command line or the configuration is wrong.
 *
 * @example
 * process.exitCode = await runCli(['admin', 'org', 'create', '--name', 'Acme', '--json']);
 */
export async function runCli(argv: readonly string[]): Promise<number> {
  let json = false;
  try {
    const found = resolve(argv);
    if ('help' in found) {
      printHelp(found.help);
      return 0;
    }
    const { command, rest } = found;
    const args = parseCommandArgs(rest, command.options, command.usage, command.operand);
    if (args.help) {
      printHelp(describeCommands([command]));
      return 0;
    }
    json = args.json;
    const job = await command.prepare(args);
    if (job.kind === 'process') {
      await job.run();
      return 0;
    }
    if (job.kind === 'remote') {
      printOutcome(await untilInterrupted(job.run), json);
      return 0;
    }
    printOutcome(await withStore(job.run), json);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      printUsageError(error, json || asksForJson(argv));
      return 2;
    }
    // Anything else, known or not (the store unreachable, a full disk), is told by its message:
    // that is what an operator can act on, and a stack trace would only bury it.
    printFailure(error instanceof Error ? error.message : String(error), json);
    if (error instanceof Interrupted) {
      // Ends as interrupted (status 130 in a shell), so a script running mnemo stops too; and at
      // once, though an abandoned poll still has a timer pending. The listener is gone by now,
      // so the signal takes its default action.
      process.kill(process.pid, 'SIGINT');
      return 130;
    }
    return error instanceof InvalidConfiguration ? 2 : 1;
  }
}
