import { expect } from 'chai';
import { TransformSlots } from '../../core/images/transform-slots.js';

describe('TransformSlots', () => {
  it('counts the transformations running and those waiting for a slot, as they start and end', async () => {
    const slots = new TransformSlots({ concurrency: 1, queueTimeoutMs: 10_000 });
    const finishers: (() => void)[] = [];
    const work = () => new Promise<void>((resolve) => finishers.push(resolve));
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const runs = [slots.run(work), slots.run(work), slots.run(work)];
    await turn();
    expect({ active: slots.active, queued: slots.queued }).to.deep.equal({ active: 1, queued: 2 });
    finishers.shift()!();
    await runs[0];
    await turn();
    expect({ active: slots.active, queued: slots.queued }).to.deep.equal({ active: 1, queued: 1 });
    finishers.shift()!();
    await runs[1];
    await turn();
    finishers.shift()!();
    await runs[2];
    expect({ active: slots.active, queued: slots.queued }).to.deep.equal({ active: 0, queued: 0 });
  });
});
