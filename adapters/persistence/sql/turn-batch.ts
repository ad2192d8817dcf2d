/**
 * Reads asked for during one turn of the event loop, sent to the database as one statement when the
 * turn's immediate callbacks run (`setImmediate`), each asker getting the whole result. For
 * Postgres, where each statement is a round trip whose socket writes cost the service more CPU than
 * the statement itself under load: the requests received together (which the lookup cache's gate
 * lets on together) then share one round trip. As fresh as reading alone: every request of a batch
 * was received before its statement was sent.
 *
 * Keys are collected into `lists` sets (e.g. account ids and file ids), in the order `ask` takes them.
 * @example new TurnBatch((sets) => readFacts([...sets[0]!]), 1).ask(ids)
 */
export class TurnBatch<Result> {
  private pending: { keys: Set<string>[]; result: Promise<Result> } | undefined;

  /**
   * @param read runs the statement for the union of the keys asked this turn, one set per list
   * @param lists how many lists of keys each `ask` gives
   */
  constructor(
    private readonly read: (keys: readonly ReadonlySet<string>[]) => Promise<Result>,
    private readonly lists: number,
  ) {}

  /**
   * Adds `keys` (one iterable per list) to this turn's read, and answers its result.
   * @throws (as a rejection) what `read` throws, to every asker of the batch
   */
  ask(...keys: Iterable<string>[]): Promise<Result> {
    let pending = this.pending;
    if (!pending) {
      const sets = Array.from({ length: this.lists }, () => new Set<string>());
      const result = new Promise<Result>((resolve, reject) => {
        setImmediate(() => {
          // Keys asked from now on go into a batch of their own: this one is being sent.
          this.pending = undefined;
          this.read(sets).then(resolve, reject);
        });
      });
      pending = this.pending = { keys: sets, result };
    }
    keys.forEach((list, index) => {
      const set = pending.keys[index];
      for (const key of list) set.add(key);
    });
    return pending.result;
  }
}
