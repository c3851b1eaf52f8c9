declare const jsonOf: unique symbol;

/**
 * A string known to be the JSON of a `T`: an answer serialized once and kept so (a cache of
 * them spares serializing it again on every request). Branded, so that it is told apart from
 * any other string, and sent as what it is rather than cast to the `T` it stands for.
 */
export type JsonText<T> = string & { readonly [jsonOf]: T };

/** `value` serialized: the JSON of its type. */
export const jsonText = <T>(value: T): JsonText<T> => JSON.stringify(value) as JsonText<T>;
