import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../lib/http/cursor.js';

const cursorError = expect.objectContaining({ errors: [expect.objectContaining({ field: 'cursor' })] });

describe('cursor', () => {
  it('round-trips a position for its own scope', () => {
    const cursor = encodeCursor('customers|id', ['0000000000000003', 3]);
    expect(decodeCursor('customers|id', cursor)).toEqual(['0000000000000003', 3]);
  });

  it('refuses another scope, an altered payload or signature, and garbage (400 on cursor)', () => {
    const cursor = encodeCursor('customers|id', 20);
    const [payload, signature] = cursor.split('.') as [string, string];
    const forged = `${Buffer.from(JSON.stringify({ s: 'customers|id', p: 40 })).toString('base64url')}.${signature}`;
    for (const bad of [forged, `${payload}.${signature.slice(1)}`, 'garbage', `${payload}.${signature}.x`, '']) {
      expect(() => decodeCursor('customers|id', bad)).toThrow(cursorError);
    }
    expect(() => decodeCursor('customers|lastname', cursor)).toThrow(cursorError);
  });

  it('depends on STORE_SECRET', () => {
    const cursor = encodeCursor('products|id', 10);
    process.env.STORE_SECRET = 'another deployment';
    try {
      expect(() => decodeCursor('products|id', cursor)).toThrow();
    } finally {
      delete process.env.STORE_SECRET;
    }
  });
});
