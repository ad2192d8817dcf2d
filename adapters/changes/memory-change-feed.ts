import type { Change, ChangeFeed, ChangeListener } from '../../core/shared/change-feed.js';

/**
 * {@link ChangeFeed} within one process: {@link publish} delivers a change to every listener at
 * once, synchronously, in subscription order. The in-memory repositories live in one process, so
 * there is nobody else to hear from; hosts and tests publish what they change.
 */
export class MemoryChangeFeed implements ChangeFeed {
  private readonly listeners = new Set<ChangeListener>();

  subscribe(listener: ChangeListener): () => void {
    // A wrapper per subscription, so one listener subscribed twice is two subscriptions.
    const entry: ChangeListener = (change) => listener(change);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  catchUp(): undefined {
    return undefined;
  }

  /** Tells every listener of `change`, now. */
  publish(change: Change): void {
    for (const listener of [...this.listeners]) listener(change);
  }
}
