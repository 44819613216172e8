// What `kubectl proxy` does, for a browser in a test: a loopback HTTP server that passes every request
// on to the API server with the kubeconfig's credentials, so a page of the API server's service proxy
// (/api/v1/namespaces/NS/services/NAME:PORT/proxy/...) opens in a browser that holds no credential.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

export interface ApiServerProxy {
  readonly url: string;
  close(): Promise<void>;
}

const UPSTREAM_MS = 60_000;

export async function apiServerProxy(config: KubeConfig): Promise<ApiServerProxy> {
  const server = new URL(config.getCurrentCluster()?.server ?? '');
  const credentials: RequestOptions = {};
  await config.applyToHTTPSOptions(credentials);
  const proxy = createServer((incoming, outgoing) => {
    const headers: IncomingHttpHeaders = { ...incoming.headers, host: server.host };
    const upstream = httpsRequest(
      {
        ...credentials,
        hostname: server.hostname,
        port: server.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...(credentials.headers as Record<string, string> | undefined), ...headers },
        timeout: UPSTREAM_MS,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('timeout', () => upstream.destroy(new Error('the API server did not answer')));
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}
