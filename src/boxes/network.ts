// The network seam, mapped to flags in exactly one place per box kind, so the allowlist proxy
// of R4.6 can later be bound in without touching the boxes.
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
      return [
        "network: the box shares the host network (no egress allowlist yet; R4.6's proxy is not built)",
      ];
    case "none":
      return ["network: none (own network namespace, loopback only)"];
    case "proxy":
      return [
        `network: none, proxy socket bound at ${PROXY_SOCKET_IN_BOX} — the allowlist proxy itself ` +
          "is not provided yet (R4.6), so nothing answers unless the deployment runs one",
      ];
  }
}
