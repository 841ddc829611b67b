// The in-box half of the door. A box has its own network namespace with only `lo`, so clients
// that honour HTTPS_PROXY/HTTP_PROXY (and the model CLI, through ANTHROPIC_BASE_URL) talk TCP
// to 127.0.0.1:<port>; the relay pipes each connection, byte for byte, to the proxy's Unix
// socket bound into the box. It decides nothing: the host-side proxy does.
import { connect, createServer, type Server, type Socket } from "node:net";

export interface RelayOptions {
  port: number;
  /** The proxy's socket as the box sees it (PROXY_SOCKET_IN_BOX). */
  socketPath: string;
  host?: string;
}

export function startRelay(o: RelayOptions): Promise<Server> {
  // Half-open on both sides: a client's end of request reaches the proxy as an end, and the
  // answer still comes back (pipe() passes ends on).
  const server = createServer({ allowHalfOpen: true, noDelay: true }, (client: Socket) => {
    const up = connect({ path: o.socketPath, allowHalfOpen: true });
    const kill = () => {
      client.destroy();
      up.destroy();
    };
    client.on("error", kill);
    up.on("error", kill);
    client.pipe(up);
    up.pipe(client);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host ?? "127.0.0.1", () => {
      server.removeListener("error", reject);
      resolve(server);
    });
  });
}
