import type { Change, ChangeListener } from '../../core/shared/change-feed.js';

/**
 * The listeners of one {@link ChangeFeed} adapter: subscriptions (one listener subscribed twice is
 * two subscriptions) and delivery, in subscription order, to the listeners subscribed when it began.
 * A listener must not throw; one that does is skipped so that the others still hear of the change.
 */
export class ChangeListeners {
  private readonly listeners = new Set<ChangeListener>();

  /** Adds `listener`. @returns the function that removes this subscription */
  subscribe(listener: ChangeListener): () => void {
    const entry: ChangeListener = (change) => listener(change);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  /** Tells every listener of `change`, now. */
  deliver(change: Change): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch {
        // Skipped: see the class comment.
      }
    }
  }

  /** Removes every subscription. */
  clear(): void {
    this.listeners.clear();
  }
}
