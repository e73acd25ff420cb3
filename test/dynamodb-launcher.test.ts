/**
 * DynamoDB Local's loopback launcher (lib/local/LoopbackDynamoDbLocal.java) is compiled once and
 * kept (`compiledLauncher`), so that no start compiles it again: starts asking at once each find it
 * whole, and a start runs the compiled class.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compiledLauncher, startDynamoDbLocal } from '../lib/local/dynamodb-local.js';

const cache = mkdtempSync(path.join(tmpdir(), 'launcher-cache-'));
afterAll(() => rmSync(cache, { recursive: true, force: true }));

describe("DynamoDB Local's loopback launcher", () => {
  it('is compiled once into its cache, whole for the starts that ask at once, and found there after', async () => {
    const folders = await Promise.all([compiledLauncher(cache), compiledLauncher(cache), compiledLauncher(cache)]);
    const [folder] = folders;
    expect(folder).toBeDefined();
    expect(new Set(folders)).toEqual(new Set([folder]));
    // Nothing half-built is left beside it, and it holds the class alone.
    expect(readdirSync(cache)).toEqual([path.basename(folder!)]);
    expect(readdirSync(folder!)).toEqual(['LoopbackDynamoDbLocal.class']);
    const compiledAt = statSync(path.join(folder!, 'LoopbackDynamoDbLocal.class')).mtimeMs;
    expect(await compiledLauncher(cache)).toBe(folder);
    expect(statSync(path.join(folder!, 'LoopbackDynamoDbLocal.class')).mtimeMs).toBe(compiledAt);
  });

  it('is what a start runs, compiled: DynamoDB Local then listens on 127.0.0.1 only', async () => {
    const dynamo = await startDynamoDbLocal();
    try {
      expect(dynamo.loopbackOnly).toBe(true);
      const [commandLine = ''] = spawnSync('pgrep', ['-af', ` -port ${dynamo.port} `])
        .stdout.toString()
        .trim()
        .split('\n');
      expect(commandLine).toMatch(/ LoopbackDynamoDbLocal -inMemory /);
      expect(commandLine).not.toContain('LoopbackDynamoDbLocal.java');
    } finally {
      await dynamo.stop();
    }
  });
});
