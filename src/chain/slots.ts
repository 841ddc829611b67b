/** A counting semaphore: at most `size` runs are driven at once (maxParallel). */
export class Slots {
  private used = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError("maxParallel must be ≥ 1");
  }

  /** Resolves true with a slot held, or false when `signal` aborted before one was free. */
  acquire(signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    if (this.used < this.size) {
      this.used++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const grant = () => {
        signal?.removeEventListener("abort", onAbort);
        this.used++;
        resolve(true);
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(grant);
        if (i >= 0) this.waiting.splice(i, 1);
        resolve(false);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(grant);
    });
  }

  release(): void {
    this.used--;
    this.waiting.shift()?.();
  }
}
