/**
 * `target` with every method call written to `trace`: the method, and its
 * arguments with `txid` replaced by a placeholder, so that the work behind
 * two answers (a private transaction's and an unknown one's) can be compared.
 */
export function recording<T extends object>(target: T, name: string, trace: string[], txid: string): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        trace.push(`${name}.${String(property)}(${JSON.stringify(args).replaceAll(txid, 'TXID')})`);
        return (value as (...a: unknown[]) => unknown).apply(object, args);
      };
    },
  });
}
