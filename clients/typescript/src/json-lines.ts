/**
 * The lines of a JSON Lines body (`application/x-ndjson`), parsed one at a time as they arrive.
 * Stopping early (a `break` out of `for await`) cancels the body, which ends the server's
 * snapshot at once.
 */
export async function* jsonLines<T>(body: ReadableStream<Uint8Array>): AsyncGenerator<T> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let rest = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += decoder.decode(value, { stream: true });
      let end = rest.indexOf('\n');
      while (end !== -1) {
        const line = rest.slice(0, end).trim();
        if (line !== '') yield JSON.parse(line) as T;
        rest = rest.slice(end + 1);
        end = rest.indexOf('\n');
      }
    }
    rest += decoder.decode();
    if (rest.trim() !== '') yield JSON.parse(rest) as T;
  } finally {
    // Reading to the end leaves nothing to cancel; stopping early releases the connection.
    await reader.cancel().catch(() => {});
  }
}
