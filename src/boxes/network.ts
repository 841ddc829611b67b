// The network seam, mapped to flags in exactly one place per box kind. "proxy" is R4.6's door:
// the runner's allowlist proxy (src/egress) bound in as a socket, the box's own namespace else.
import type { BoxOptions, NetworkSeam } from "./types.js";

/** Where a proxy socket appears inside a bwrap box. */
export const PROXY_SOCKET_IN_BOX = "/run/forge/egress.sock";

export function resolveNetwork(opts: Pick<BoxOptions, "allowNetwork" | "network">): NetworkSeam {
  if (opts.network) return opts.network;
  return { mode: opts.allowNetwork ? "host" : "none" };
}

/** bwrap flags for the seam. "proxy": no network namespace of the host, only the socket. */
export function bwrapNetworkArgs(seam: NetworkSeam): string[] {
  switch (seam.mode) {
    case "host":
      return [];
    case "none":
      return ["--unshare-net"];
    case "proxy":
      if (!seam.proxySocket) throw new Error("network mode proxy needs proxySocket");
      return ["--unshare-net", "--bind", seam.proxySocket, PROXY_SOCKET_IN_BOX];
  }
}

/** docker/podman `--network` value (plus a socket volume for "proxy"). */
export function containerNetworkArgs(seam: NetworkSeam): string[] {
  switch (seam.mode) {
    case "host":
      // The engine's default bridge: outbound access like the host's, not the host's loopback.
      return ["--network", "bridge"];
    case "none":
      return ["--network", "none"];
    case "proxy":
      if (!seam.proxySocket) throw new Error("network mode proxy needs proxySocket");
      return ["--network", "none", "-v", `${seam.proxySocket}:${PROXY_SOCKET_IN_BOX}`];
  }
}

export function networkNotes(seam: NetworkSeam): string[] {
  switch (seam.mode) {
    case "host":
      return ["network: the box shares the host network: nothing limits what it can reach"];
    case "none":
      return ["network: none (own network namespace, loopback only)"];
    case "proxy":
      return [
        "network: its own namespace with no route and no resolver; the only way out is " +
          "forgechain's egress proxy, which lets through what the box's phase allows " +
          "(the model endpoint for an agent, the package registries for setup, nothing else " +
          "unless the deployment or .github/forge.yml adds hosts)",
      ];
  }
}
