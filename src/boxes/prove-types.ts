export interface ProveCheck {
  name: string;
  ok: boolean;
  detail: string;
  /** What to do when it failed ("" when ok). */
  fix: string;
  /** Not run because a check it depends on failed (then ok is false). */
  skipped?: boolean;
}
