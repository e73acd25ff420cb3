import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../lib/http/cursor.js';

const cursorError = expect.objectContaining({ errors: [expect.objectContaining({ field: 'cursor' })] });

describe('cursor', () => {
  it('round-trips a position for its own scope', async () => {
    const cursor = await encodeCursor('customers|id', ['0000000000000003', 3]);
    expect(await decodeCursor('customers|id', cursor)).toEqual(['0000000000000003', 3]);
  });

  it('refuses another scope, an altered payload or signature, and garbage (400 on cursor)', async () => {
    const cursor = await encodeCursor('customers|id', 20);
    const [payload, signature] = cursor.split('.') as [string, string];
    const scope = JSON.parse(Buffer.from(payload, 'base64url').toString()).s as string;
    const forged = `${Buffer.from(JSON.stringify({ s: scope, p: 40 })).toString('base64url')}.${signature}`;
    for (const bad of [forged, `${payload}.${signature.slice(1)}`, 'garbage', `${payload}.${signature}.x`, '']) {
      await expect(decodeCursor('customers|id', bad)).rejects.toMatchObject(cursorError);
    }
    await expect(decodeCursor('customers|lastname', cursor)).rejects.toMatchObject(cursorError);
  });

  it("stays small whatever its scope's filters hold: the scope is carried as a digest", async () => {
    const scope = `products|id|title=${'x'.repeat(20_000)}`;
    const cursor = await encodeCursor(scope, ['0000000000000003', 3]);
    expect(cursor.length).toBeLessThan(200);
    expect(await decodeCursor(scope, cursor)).toEqual(['0000000000000003', 3]);
    await expect(decodeCursor(`${scope}y`, cursor)).rejects.toMatchObject(cursorError);
  });

  it('depends on STORE_SECRET', async () => {
    const cursor = await encodeCursor('products|id', 10);
    const own = process.env.STORE_SECRET;
    process.env.STORE_SECRET = 'another deployment';
    try {
      await expect(decodeCursor('products|id', cursor)).rejects.toThrow();
    } finally {
      process.env.STORE_SECRET = own;
    }
  });
});
