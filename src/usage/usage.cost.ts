/** A model's price in US dollars per million tokens, as the operator configures it. */
export interface TokenPrices {
  readonly input: number;
  readonly output: number;
}

/**
 * The cost of one call in millionths of a US dollar, rounded to the nearest (halves up): the
 * one place the gateway turns tokens into money. A price per million tokens is exactly the
 * price of one token in micro-dollars, so the cost is `prompt × input + completion × output`;
 * it is computed on the prices as the operator wrote them (their shortest decimal form), in
 * integers, so `1.15 × 10` is 11.5 → 12 and not the 11.499… of floating point.
 *
 * @example
 * costMicroUsd({ input: 2, output: 8 }, 1200, 300); // 4800 (= $0.0048)
 */
export function costMicroUsd(
  prices: TokenPrices,
  promptTokens: number,
  completionTokens: number,
): number {
  const input = decimal(prices.input, 'prices.input');
  const output = decimal(prices.output, 'prices.output');
  const prompt = BigInt(tokenCount(promptTokens, 'promptTokens'));
  const completion = BigInt(tokenCount(completionTokens, 'completionTokens'));
  const scale = input.scale > output.scale ? input.scale : output.scale;
  const exact =
    prompt * input.digits * 10n ** (scale - input.scale) +
    completion * output.digits * 10n ** (scale - output.scale);
  const unit = 10n ** scale;
  const micro = (exact + unit / 2n) / unit;
  if (micro > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('cost is out of range');
  return Number(micro);
}

/** A non-negative finite number as `digits / 10^scale`, both integers, from its shortest form. */
function decimal(value: number, name: string): { digits: bigint; scale: bigint } {
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative finite number`);
  }
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(value));
  if (!match) throw new RangeError(`${name} must be a non-negative finite number`);
  const [, whole = '', fraction = '', exponent = '0'] = match;
  const digits = BigInt(whole + fraction);
  const scale = BigInt(fraction.length) - BigInt(exponent);
  return scale >= 0n ? { digits, scale } : { digits: digits * 10n ** -scale, scale: 0n };
}

function tokenCount(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer`);
  }
  return value;
}
