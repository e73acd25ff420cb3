/**
 * lib/db/logged-add.ts on its own, on the run's DynamoDB Local and plain items (no resource): a
 * number added to on condition, each add logged on the item; the log recorded (the steps its caller
 * builds for each entry) and trimmed, an entry another writer recorded first left out.
 */
import { describe, expect, it } from 'vitest';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../lib/db/client.js';
import { readItem, type Item } from '../lib/db/items.js';
import { addLogged, recordLog, type LoggedAdd } from '../lib/db/logged-add.js';
import { ABSENT, put } from '../lib/db/transactions.js';

let sequence = 0;
/** A fresh item holding `count` (a DynamoDB number) at version 1, or its text when `asText`. */
async function counter(count: string, asText = false): Promise<{ pk: string; sk: string }> {
  const key = { pk: `LOGGED#${process.pid}-${++sequence}`, sk: 'COUNT' };
  await db().send(new PutCommand({ TableName: tableName(), Item: { ...key, count: asText ? count : Number(count), version: 1, updatedAt: 'none yet' } }));
  return key;
}

const adding = (amount: string, id: string, extra: Partial<LoggedAdd> = {}): LoggedAdd => ({
  attribute: 'count',
  amount,
  floor: amount.startsWith('-') ? amount.slice(1) : '0',
  log: 'log',
  entry: () => ({ id, amount }),
  maxEntries: 3,
  fence: 'fenced',
  recorded: () => Promise.resolve(false),
  ...extra,
});

/** Each entry of the item's log recorded as an item of its own, put on condition that it is absent. */
const recordsOf = (key: { pk: string }) => (item: Item) =>
  ((item.log as Array<{ id: string }> | undefined) ?? []).map((entry, k) => ({
    id: entry.id,
    steps: [put({ pk: `${key.pk}#RECORDED`, sk: entry.id, version: Number(item.version) - ((item.log as unknown[]).length - 1) + k }, ABSENT)],
    trimmedWith: { updatedAt: `after ${entry.id}` },
  }));

describe('a logged add', () => {
  it('adds to the number and to the version, appending its entry to the log, and answers the item', async () => {
    const key = await counter('5');
    const first = await addLogged(key, adding('-2', 'a'));
    expect(first).toMatchObject({ added: true, item: { count: 3, version: 2, log: [{ id: 'a', amount: '-2' }] }, entry: { id: 'a' } });
    const second = await addLogged(key, adding('4.5', 'b'));
    expect(second).toMatchObject({ added: true, item: { count: 7.5, version: 3, log: [{ id: 'a' }, { id: 'b' }] } });
  });

  it('is refused, writing nothing, below its floor, past the log’s size, at another version than expected, fenced, or on a number stored as text', async () => {
    const key = await counter('2');
    const refusedBelow = await addLogged(key, adding('-3', 'a'));
    expect(refusedBelow).toEqual({ added: false, found: { ...key, count: 2, version: 1, updatedAt: 'none yet' }, numberAsText: false });
    expect(await addLogged(key, adding('-1', 'b', { expectedVersion: 7 }))).toMatchObject({ added: false, numberAsText: false });
    for (const id of ['c', 'd', 'e']) expect((await addLogged(key, adding('1', id))).added).toBe(true);
    expect(await addLogged(key, adding('1', 'f'))).toMatchObject({ added: false, found: { count: 5, log: [{ id: 'c' }, { id: 'd' }, { id: 'e' }] } });
    expect(await readItem(key)).toMatchObject({ count: 5, version: 4 });

    // An add whose answer was lost is fenced: a late copy of it applies no more.
    const fenced = await counter('1');
    await db().send(new UpdateCommand({ TableName: tableName(), Key: fenced, UpdateExpression: 'SET fenced = :fences', ExpressionAttributeValues: { ':fences': { lost: Date.now() } } }));
    expect(await addLogged(fenced, adding('1', 'lost'))).toMatchObject({ added: false, found: { count: 1, version: 1 } });

    const text = await counter('9', true);
    expect(await addLogged(text, adding('-1', 'a'))).toMatchObject({ added: false, numberAsText: true });
    expect(await addLogged({ pk: 'LOGGED#none', sk: 'COUNT' }, adding('1', 'a'))).toEqual({ added: false, found: undefined, numberAsText: false });
  });
});

describe('a log recorded', () => {
  it('records every entry under its version in one transaction and trims them, setting what the last one says', async () => {
    const key = await counter('10');
    for (const id of ['a', 'b', 'c']) await addLogged(key, adding('-1', id));
    await recordLog(key, (await readItem(key))!, { name: 'log', changesOf: recordsOf(key) });
    expect(await readItem(key)).toMatchObject({ count: 7, version: 4, log: [], updatedAt: 'after c' });
    for (const [id, version] of [
      ['a', 2],
      ['b', 3],
      ['c', 4],
    ] as const)
      expect(await readItem({ pk: `${key.pk}#RECORDED`, sk: id })).toMatchObject({ version });
  });

  it('leaves out an entry another writer recorded first (its condition fails) and records the rest', async () => {
    const key = await counter('10');
    for (const id of ['a', 'b', 'c']) await addLogged(key, adding('-1', id));
    // Entry b recorded by another writer, whose trim has not come yet.
    await db().send(new PutCommand({ TableName: tableName(), Item: { pk: `${key.pk}#RECORDED`, sk: 'b', version: 3, by: 'another writer' } }));
    await recordLog(key, (await readItem(key))!, { name: 'log', changesOf: recordsOf(key) });
    expect(await readItem(key)).toMatchObject({ log: [], updatedAt: 'after c' });
    expect(await readItem({ pk: `${key.pk}#RECORDED`, sk: 'b' })).toMatchObject({ by: 'another writer' });
    expect(await readItem({ pk: `${key.pk}#RECORDED`, sk: 'c' })).toMatchObject({ version: 4 });
  });

  it('for the writer of an entry behind a first that does not move, records them all once the first has stalled', async () => {
    const key = await counter('10');
    for (const id of ['stopped', 'mine']) await addLogged(key, adding('-1', id));
    const started = Date.now();
    await recordLog(key, (await readItem(key))!, { name: 'log', mine: 'mine', changesOf: recordsOf(key) });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(await readItem(key)).toMatchObject({ log: [], updatedAt: 'after mine' });
    expect(await readItem({ pk: `${key.pk}#RECORDED`, sk: 'stopped' })).toMatchObject({ version: 2 });
  });
});
