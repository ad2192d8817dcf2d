import type { Change, ChangeFeed, ChangeListener } from '../../core/shared/change-feed.js';
import { ChangeListeners } from './change-listeners.js';

/**
 * {@link ChangeFeed} within one process: {@link publish} delivers a change to every listener at
 * once, synchronously, in subscription order. The in-memory repositories live in one process, so
 * there is nobody else to hear from; hosts and tests publish what they change.
 */
export class MemoryChangeFeed implements ChangeFeed {
  private readonly listeners = new ChangeListeners();

  subscribe(listener: ChangeListener): () => void {
    return this.listeners.subscribe(listener);
  }

  catchUp(): undefined {
    return undefined;
  }

  /** Tells every listener of `change`, now. */
  publish(change: Change): void {
    this.listeners.deliver(change);
  }
}
