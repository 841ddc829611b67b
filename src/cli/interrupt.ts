// Signal handling for long CLI commands (`forge run`, the Stop hook).
//
// Why not process.once: execa adds a SIGINT listener of its own (through signal-exit) while
// one of its subprocesses runs, and when that listener finds itself the only one it re-raises
// the signal, which kills the process. A `once` listener is gone after the first Ctrl-C, so a
// run that was cancelling died halfway whenever a git command was running at that moment
// (seen in CI: killed by SIGINT right after printing "cancelling"). The listener here stays
// until the body has finished; a repeated signal is passed on with its count.

export type Interrupt = "SIGINT" | "SIGTERM";

export async function whileHandlingSignals<T>(
  signals: readonly Interrupt[],
  onSignal: (signal: Interrupt, count: number) => void,
  body: () => Promise<T>,
): Promise<T> {
  let count = 0;
  const listeners = signals.map((signal) => {
    const listener = () => onSignal(signal, ++count);
    process.on(signal, listener);
    return [signal, listener] as const;
  });
  try {
    return await body();
  } finally {
    for (const [signal, listener] of listeners) process.off(signal, listener);
  }
}
