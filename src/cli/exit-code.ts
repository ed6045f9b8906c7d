import { CommanderError } from 'commander';
import type { Command } from 'commander';

/** Exit codes: 0 success (help and version included), 1 the work failed, 2 the command line is wrong. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/**
 * Commander exits by itself, with 1 for usage errors; this makes every command throw instead, so
 * that the one place in `main.ts` decides the code.
 */
export function throwInsteadOfExit(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) throwInsteadOfExit(sub);
}

/** Commander has already printed its message when it throws; only the code is left to choose. */
export function commanderExitCode(error: CommanderError): number {
  if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT.ok;
  // `command.error(message, { exitCode })` inside an action: the action chose.
  if (error.code === 'commander.error') return error.exitCode;
  // A command group without its subcommand shows help as an error.
  if (error.code === 'commander.help') return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  return EXIT.usage;
}

export { CommanderError };
