/**
 * Work on many items, a bounded number at once: each of `concurrency` runners takes the next item
 * when it is done with its last. The results come back in the items' order, whatever order they
 * finished in. (A batch's rows, a webhook lane's attempts, an upsert's look-ups.)
 */
export async function inTurns<T, R>(items: readonly T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const runner = async () => {
    for (let k = next++; k < items.length; k = next++) results[k] = await work(items[k]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, runner));
  return results;
}
