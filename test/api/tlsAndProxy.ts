// Loopback stand-ins for a corporate network, shared by the client's network tests and
// Check Connection's: an HTTP CONNECT proxy that counts its tunnels, and an HTTPS server
// with a self-signed certificate (made with openssl) whose PEM can serve as a CA bundle.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';

export interface CountingProxy {
  url: string;
  tunnels: string[];
  close(): Promise<void>;
}

/** A minimal HTTP CONNECT proxy: opens a TCP tunnel per CONNECT and records its target. */
export async function startConnectProxy(): Promise<CountingProxy> {
  const sockets = new Set<Socket>();
  const tunnels: string[] = [];
  const server: Server = createHttpServer((_req, res) => {
    res.writeHead(405).end('this proxy only tunnels');
  });
  server.on('connect', (req, client: Socket, head: Buffer) => {
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface SelfSignedServer {
  url: string;
  /** The server's certificate as PEM: a CA bundle that trusts it. */
  caPath: string;
  close(): Promise<void>;
}

/** An HTTPS server on 127.0.0.1 with a fresh self-signed certificate (files under `dir`). */
export async function startSelfSignedServer(dir: string, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<SelfSignedServer> {
  const key = join(dir, 'tls-key.pem');
  const caPath = join(dir, 'tls-cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', caPath, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], {
    stdio: 'ignore',
  });
  const server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(caPath) }, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caPath,
    close: () => new Promise((resolve) => server.close(() => resolve()).closeAllConnections()),
  };
}
