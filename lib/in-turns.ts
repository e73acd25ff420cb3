/**
 * Work on many items, a bounded number at once: each of `concurrency` runners takes the next item
 * when it is done with its last. The results come back in the items' order, whatever order they
 * finished in. (A batch's rows, a webhook lane's attempts, an upsert's look-ups.)
 */
export async function inTurns<T, R>(items: readonly T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  // One queue for every runner: each for-of takes the next entry no other runner took.
  const queue = items.entries();
  const runner = async () => {
    for (const [k, item] of queue) results[k] = await work(item);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, runner));
  return results;
}
