import cliProgress from 'cli-progress';

const thousands = (n: number) => n.toLocaleString('en-US');

/** What `mnemo import` shows while it runs: a bar on a terminal, nothing in a pipe or a log. */
export interface ImportProgress {
  /** `count` more of the file's memories were answered; `tally` is the import so far. */
  advance(count: number, tally: { created: number; folded: number; invalid: number }): void;
  /** The server asked to wait `seconds` before the next request (429, 503). */
  waiting(seconds: number, why: string): void;
  stop(): void;
}

/**
 * A progress bar on standard error, whose lines it keeps for itself (the summary goes to standard
 * output once it is done). `total`: the memories the file holds, when known beforehand.
 */
export function createImportProgress(total: number | undefined): ImportProgress {
  const stream = process.stderr;
  if (!stream.isTTY) return { advance() {}, waiting() {}, stop() {} };
  const bar = new cliProgress.SingleBar(
    {
      format:
        total === undefined
          ? 'importing {value} memories | {created} created, {folded} folded, {invalid} invalid {status}'
          : 'importing [{bar}] {percentage}% | {value}/{total} | {created} created, {folded} folded, {invalid} invalid | {eta_formatted} {status}',
      stream,
      // Counts as the summary prints them: 16,000/30,001.
      formatValue: (value, _options, type) =>
        type === 'value' || type === 'total' ? thousands(value) : String(value),
      hideCursor: true,
      barsize: 24,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  let value = 0;
  bar.start(total ?? 0, 0, { created: 0, folded: 0, invalid: 0, status: '' });
  return {
    advance(count, tally) {
      value += count;
      bar.update(value, {
        created: thousands(tally.created),
        folded: thousands(tally.folded),
        invalid: thousands(tally.invalid),
        status: '',
      });
    },
    waiting(seconds, why) {
      bar.update(value, { status: `| waiting ${seconds} s: ${why}` });
    },
    stop: () => bar.stop(),
  };
}
