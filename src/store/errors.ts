// Errors of opening a journal file; the chain's own errors live in src/chain/errors.ts.

export class JournalOpenError extends Error {
  readonly code = "journal_open";
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`cannot open journal ${file}: ${reason}`);
    this.name = "JournalOpenError";
  }
}

/** The file was written by a newer forgechain whose schema this version does not know. */
export class JournalVersionError extends Error {
  readonly code = "journal_version";
  constructor(
    readonly file: string,
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `journal ${file} has schema version ${found}, but this forgechain knows versions up to ` +
        `${known}; upgrade forgechain (or point FORGE_HOME at another directory) — the file is ` +
        "left untouched",
    );
    this.name = "JournalVersionError";
  }
}
