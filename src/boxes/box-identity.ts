// The box's own /etc/passwd and /etc/group. The host's files are not in the box's allowlist
// (they list the host's accounts), but tools look the current user up by uid — git for the
// committer fallback, ssh for ~/.ssh (it ignores $HOME), npm, python's getpass — and fail or
// misbehave without an entry. So the box gets three entries: root, `forge` (the box user,
// HOME = the box's HOME) and nobody.
//
// The box writes them itself, first thing, before it drops to its user (IDENTITY_SCRIPT): no
// file of the runner to clean up (files a runner process left in /tmp piled up, one pair per
// step, whenever it was killed), and with a switched user they end up root-owned in a
// root-owned /etc the box user cannot change.

export const BOX_USER_NAME = "forge";
const NOBODY = 65534;

export interface BoxIdentity {
  uid: number;
  gid: number;
  home: string;
}

export function passwdText(id: BoxIdentity): string {
  checkField(id.home);
  const lines = [`root:x:0:0:root:${id.uid === 0 ? id.home : "/root"}:/bin/sh`];
  if (id.uid !== 0)
    lines.push(`${BOX_USER_NAME}:x:${id.uid}:${id.gid}:forgechain box:${id.home}:/bin/sh`);
  if (id.uid !== NOBODY)
    lines.push(`nobody:x:${NOBODY}:${NOBODY}:nobody:/nonexistent:/usr/sbin/nologin`);
  return `${lines.join("\n")}\n`;
}

export function groupText(id: BoxIdentity): string {
  const lines = ["root:x:0:"];
  if (id.gid !== 0) lines.push(`${BOX_USER_NAME}:x:${id.gid}:`);
  if (id.gid !== NOBODY) lines.push(`nobody:x:${NOBODY}:`);
  return `${lines.join("\n")}\n`;
}

/** A ':' or a newline in the HOME would add or shift passwd fields. */
function checkField(value: string): void {
  if (/[:\n]/.test(value)) {
    throw new Error(`the box's HOME ${JSON.stringify(value)} cannot be named in /etc/passwd`);
  }
}

/**
 * `sh -c IDENTITY_SCRIPT forge-box <passwd> <group> <command…>`: writes the two files into the
 * box's /etc (a directory of the box's own tmpfs) and execs the command. The texts are
 * arguments, never part of the script.
 */
export const IDENTITY_SCRIPT =
  'umask 022 && printf %s "$1" > /etc/passwd && printf %s "$2" > /etc/group && shift 2 && exec "$@"';

export function identityPrefix(id: BoxIdentity): string[] {
  return ["/bin/sh", "-c", IDENTITY_SCRIPT, "forge-box", passwdText(id), groupText(id)];
}
