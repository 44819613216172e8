/**
 * The web pages of a RESTful MiniCluster (served by its lead pod under /ui/, docs/restful-api.md
 * "Web pages") on a local port: a port-forward, through the API server, to the pod behind the
 * Service `<name>-restful`, one forwarded stream per browser connection. `flux-operator jobs ui`.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import { apiClientsFor } from '../kube/clients.ts';
import { InputError } from './input-error.ts';
import { restfulServiceOf } from './restful-target.ts';

export interface PagesForwardOptions {
  readonly config: KubeConfig;
  readonly name: string;
  readonly namespace: string;
  /** The local port (0: any free one). */
  readonly port: number;
  /** Where a connection that cannot be forwarded is told about (not the browser's business). */
  readonly problem?: (message: string) => void;
}

export interface PagesForward {
  /** The pages' URL on this machine. */
  readonly url: string;
  readonly service: string;
  close(): Promise<void>;
}

/** The port the Service sends to on the pod. */
async function targetPort(config: KubeConfig, namespace: string, service: string): Promise<number> {
  const found = await apiClientsFor(config).core.readNamespacedService({ name: service, namespace });
  const port = found.spec?.ports?.[0];
  const target = typeof port?.targetPort === 'number' ? port.targetPort : port?.port;
  if (target === undefined) {
    throw new InputError([
      `Service ${namespace}/${service} has no port; the operator makes it: try again shortly`,
    ]);
  }
  return target;
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new InputError([`port ${port} is in use on 127.0.0.1: give another --port (0 picks a free one)`])
          : error,
      ),
    );
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

/** Starts forwarding; resolves once the local port listens. */
export async function forwardPages(options: PagesForwardOptions): Promise<PagesForward> {
  const { config, namespace } = options;
  const service = await restfulServiceOf({ config: () => config, name: options.name, namespace });
  const remote = await targetPort(config, namespace, service);
  const { PortForward } = await import('@kubernetes/client-node');
  const forward = new PortForward(config, true);
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    forward.portForwardService(namespace, service, [remote], socket, null, socket).then(
      (opened) => {
        const webSocket = typeof opened === 'function' ? opened() : opened;
        socket.on('close', () => webSocket?.close());
        webSocket?.on('close', () => socket.destroy());
      },
      (error: unknown) => {
        options.problem?.(
          `cannot forward to Service ${namespace}/${service}: ${error instanceof Error ? error.message : String(error)}\n`,
        );
        socket.destroy();
      },
    );
  });
  const port = await listen(server, options.port);
  return {
    url: `http://127.0.0.1:${port}/ui/`,
    service,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
