/**
 * How Lambda's containers reach `npm start`'s DynamoDB Local while it stays private. DynamoDB Local
 * listens on 127.0.0.1 only (dynamodb-local.ts), and a container of `sam local` reaches the host at
 * `host.docker.internal`, that is the Docker bridge's gateway address (172.17.0.1 by default), which
 * is not loopback. So, for as long as `npm run sam` runs, a TCP relay listens on that gateway address
 * and passes to DynamoDB Local what comes from the bridge's own subnet, the containers; a connection
 * from anywhere else (another host routed to that address, a process of this machine) is closed
 * unanswered. Tooling: no Lambda bundles it.
 */
import { spawnSync } from 'node:child_process';
import { connect, createServer, type Socket } from 'node:net';
import ipaddr from 'ipaddr.js';

/** A Docker network's addresses: the host's address on it, and the range its containers take theirs from. */
export interface DockerBridge {
  gateway: string;
  subnet: string;
}

/**
 * Docker's default bridge network, as `docker network inspect bridge` shows its IPAM config: its
 * IPv4 subnet, and its gateway, which Docker leaves out when it is the default one, the subnet's
 * first address (what `host-gateway` then resolves to).
 */
export function parseNetworkInspect(output: string): DockerBridge | undefined {
  let configs: unknown;
  try {
    configs = JSON.parse(output);
  } catch {
    return undefined;
  }
  if (!Array.isArray(configs)) return undefined;
  for (const config of configs as Array<{ Subnet?: unknown; Gateway?: unknown } | null>) {
    const { Subnet: subnet, Gateway: gateway } = config ?? {};
    if (typeof subnet !== 'string' || !ipaddr.IPv4.isValidCIDRFourPartDecimal(subnet)) continue;
    if (typeof gateway === 'string' && ipaddr.IPv4.isValidFourPartDecimal(gateway)) return { gateway, subnet };
    // The network's first host: its address's last byte plus one.
    const [a = 0, b = 0, c = 0, d = 0] = ipaddr.IPv4.networkAddressFromCIDR(subnet).toByteArray();
    const first = [a, b, c, d + 1];
    return { gateway: ipaddr.fromByteArray(first).toString(), subnet };
  }
  return undefined;
}

/** The bridge that `sam local`'s containers are on, as Docker answers; undefined where no Docker answers. */
export function dockerBridge(): DockerBridge | undefined {
  const inspected = spawnSync('docker', ['network', 'inspect', 'bridge', '--format', '{{json .IPAM.Config}}'], { encoding: 'utf8', timeout: 10_000 });
  return inspected.status === 0 ? parseNetworkInspect(inspected.stdout.trim()) : undefined;
}

/** Whether a peer's address is in `subnet` (IPv4-mapped IPv6 addresses taken as the IPv4 they carry). */
export function inSubnet(address: string | undefined, subnet: string): boolean {
  if (!address || !ipaddr.isValid(address)) return false;
  const peer = ipaddr.process(address);
  const range = ipaddr.parseCIDR(subnet);
  return peer.kind() === range[0].kind() && peer.match(range);
}

export interface BridgeRelay {
  /** The port it listens on, at `bridge.gateway`. */
  readonly port: number;
  /** Connections closed unanswered: from outside the bridge's subnet. */
  readonly refused: number;
  close(): Promise<void>;
}

/** Listens on the bridge's gateway address (a free port) and passes what comes from its subnet to `target`. */
export function startBridgeRelay(bridge: DockerBridge, target: { host: string; port: number }): Promise<BridgeRelay> {
  const sockets = new Set<Socket>();
  let refused = 0;
  const server = createServer((inbound) => {
    if (!inSubnet(inbound.remoteAddress, bridge.subnet)) {
      refused++;
      inbound.destroy();
      return;
    }
    const outbound = connect(target.port, target.host);
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      // Either side ending or failing ends both: a container sees the connection drop, as it would DynamoDB's.
      socket.once('error', () => {
        inbound.destroy();
        outbound.destroy();
      });
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, bridge.gateway, () => {
      server.off('error', reject);
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({
        port,
        get refused() {
          return refused;
        },
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
