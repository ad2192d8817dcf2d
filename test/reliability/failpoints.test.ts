import { expect } from 'chai';
import { ProcessFailpoints } from '../../adapters/failpoints/process-failpoints.js';
import { ConfigError, loadConfig } from '../../apps/server/config.js';
import { NO_FAILPOINTS } from '../../core/shared/failpoints.js';

describe('failpoints (HANGAR_FAILPOINTS, tests only)', () => {
  it('are off unless HANGAR_FAILPOINTS names them', () => {
    expect(loadConfig({}).failpoints).to.deep.equal([]);
  });

  it('parse "name" as a kill and "name=ERRNO" as an injected error', () => {
    expect(loadConfig({ HANGAR_FAILPOINTS: 'after_blob_before_record, blob_write=EIO' }).failpoints).to.deep.equal([
      { name: 'after_blob_before_record', action: 'kill' },
      { name: 'blob_write', action: { errno: 'EIO' } },
    ]);
  });

  it('refuse an unknown name or action with a ConfigError naming HANGAR_FAILPOINTS', () => {
    for (const value of ['after_everything', 'blob_write=enospc', 'blob_write=']) {
      let error: unknown;
      try {
        loadConfig({ HANGAR_FAILPOINTS: value });
      } catch (caught) {
        error = caught;
      }
      expect(error, value).to.be.instanceOf(ConfigError);
      expect((error as ConfigError).variable).to.equal('HANGAR_FAILPOINTS');
    }
  });

  it('kill at an armed point (and never let the caller go on), do nothing at the others', async () => {
    let kills = 0;
    const failpoints = new ProcessFailpoints({ armed: [{ name: 'after_blob_before_record', action: 'kill' }], kill: () => kills++ });
    await failpoints.reach('after_record_before_response');
    expect(kills).to.equal(0);
    const reached = failpoints.reach('after_blob_before_record');
    const settled = await Promise.race([reached.then(() => 'went on'), new Promise((resolve) => setTimeout(() => resolve('held'), 50))]);
    expect(settled).to.equal('held');
    expect(kills).to.equal(1);
  });

  it('reject with an error shaped like the system call’s (code ENOSPC) when armed with an errno', async () => {
    const failpoints = new ProcessFailpoints({ armed: [{ name: 'blob_write', action: { errno: 'ENOSPC' } }] });
    const error = await failpoints.reach('blob_write').then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect((error as NodeJS.ErrnoException).code).to.equal('ENOSPC');
    await NO_FAILPOINTS.reach('blob_write');
  });
});
