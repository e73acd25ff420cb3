/**
 * The relay `npm run sam` puts on Docker's bridge (lib/local/bridge-relay.ts): it passes to its
 * target what comes from the bridge's subnet, and closes anything else unanswered. Here the
 * "bridge" is 127.0.0.2/32 on loopback, and a peer chooses its source address with localAddress.
 */
import { connect, createServer, type Server } from 'node:net';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inSubnet, parseNetworkInspect, startBridgeRelay, type BridgeRelay } from '../../lib/local/bridge-relay.js';

let echo: Server;
let relay: BridgeRelay;
beforeAll(async () => {
  echo = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  const address = echo.address();
  relay = await startBridgeRelay({ gateway: '127.0.0.1', subnet: '127.0.0.2/32' }, { host: '127.0.0.1', port: typeof address === 'object' && address ? address.port : 0 });
});
afterAll(async () => {
  await relay.close();
  echo.close();
});

/** Sends `text` through the relay from `localAddress`; what came back before the connection closed. */
async function through(localAddress: string, text: string): Promise<string> {
  const socket = connect({ host: '127.0.0.1', port: relay.port, localAddress });
  let received = '';
  socket.on('data', (chunk) => {
    received += chunk;
    if (received === text) socket.end();
  });
  socket.on('error', () => {});
  await once(socket, 'connect');
  socket.write(text);
  await once(socket, 'close');
  return received;
}

describe('the bridge relay', () => {
  it("passes a connection from the bridge's subnet to its target, both ways", async () => {
    expect(await through('127.0.0.2', 'GetItem please')).toBe('GetItem please');
  });

  it('closes a connection from outside the subnet without passing anything', async () => {
    const before = relay.refused;
    expect(await through('127.0.0.3', 'anyone?')).toBe('');
    expect(relay.refused).toBe(before + 1);
  });
});

describe("reading Docker's bridge", () => {
  it('takes the subnet and gateway of `docker network inspect bridge`', () => {
    expect(parseNetworkInspect('[{"Subnet":"172.17.0.0/16","Gateway":"172.17.0.1"}]')).toEqual({ subnet: '172.17.0.0/16', gateway: '172.17.0.1' });
    // Docker 28 leaves the default gateway out: the subnet's first address.
    expect(parseNetworkInspect('[{"Subnet":"172.17.0.0/16"}]')).toEqual({ subnet: '172.17.0.0/16', gateway: '172.17.0.1' });
    expect(parseNetworkInspect('[{"Subnet":"10.200.8.0/22"}]')).toEqual({ subnet: '10.200.8.0/22', gateway: '10.200.8.1' });
    // An IPv6-enabled bridge lists its IPv4 range beside the IPv6 one.
    expect(parseNetworkInspect('[{"Subnet":"fd00::/64","Gateway":"fd00::1"},{"Subnet":"10.9.0.0/24","Gateway":"10.9.0.1"}]')).toEqual({ subnet: '10.9.0.0/24', gateway: '10.9.0.1' });
    for (const output of ['', 'null', '[]', '[{"Gateway":"172.17.0.1"}]', 'Error: No such network: bridge']) expect(parseNetworkInspect(output)).toBeUndefined();
  });

  it('tells addresses of the subnet, IPv4-mapped ones included, from others', () => {
    expect(inSubnet('172.17.0.2', '172.17.0.0/16')).toBe(true);
    expect(inSubnet('::ffff:172.17.0.9', '172.17.0.0/16')).toBe(true);
    expect(inSubnet('172.18.0.2', '172.17.0.0/16')).toBe(false);
    expect(inSubnet('127.0.0.1', '172.17.0.0/16')).toBe(false);
    expect(inSubnet('fd00::2', '172.17.0.0/16')).toBe(false);
    expect(inSubnet(undefined, '172.17.0.0/16')).toBe(false);
  });
});
