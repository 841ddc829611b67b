// The App's handlers ask for an installation's GitHub port and git token (installations.ts). In
// the Action there is one repository and one token — the workflow's, or an App token the
// workflow made: every installation id (a workflow's payload has none: 0) gets them.
import type { Installations } from "../app/installations.js";
import type { GitHubPort } from "../github/port.js";
import { tokenPort } from "../github/token-client.js";

export function tokenInstallations(o: {
  token: string;
  apiUrl: string;
  graphqlUrl?: string;
  botLogin?: string;
  log?: { warn(msg: string): void };
}): Installations {
  let port: GitHubPort | undefined;
  return {
    async port() {
      port ??= tokenPort({
        token: o.token,
        baseUrl: o.apiUrl,
        ...(o.graphqlUrl ? { graphqlUrl: o.graphqlUrl } : {}),
        ...(o.botLogin ? { botLogin: o.botLogin } : {}),
        ...(o.log ? { log: o.log } : {}),
      });
      return port;
    },
    async token() {
      return o.token;
    },
  };
}
