import { expect } from 'chai';
import { createHangar, DAY_MS } from '../../core/index.js';
import { createMemoryHangar, expectDomainError, PRO_PLAN, START, TRIAL_PLAN, withTrialPlan } from '../support/memory-hangar.js';

const TRIAL_END = new Date(START.getTime() + 14 * DAY_MS);

async function withAlice(...args: Parameters<typeof createMemoryHangar>) {
  const world = createMemoryHangar(...args);
  const alice = await world.registerConfirmed('alice@example.com');
  const profile = () => world.hangar.getProfile.execute({ userId: alice.userId });
  /** The standing fields GET /profile shows. */
  const standing = async () => {
    const { standing: s } = await profile();
    return {
      plan: s.plan.name,
      trialEndsAt: s.trialEndsAt,
      trialActive: s.trialActive,
      status: s.status,
      accessUntil: s.accessUntil,
      subscriptionCanceledAt: s.subscriptionCanceledAt,
      canWrite: s.canWrite,
    };
  };
  return { ...world, alice, profile, standing };
}

describe('GetProfile', () => {
  it('shows the user, the default plan with its limits, the trial end 14 days after sign-up and no billing', async () => {
    const { alice, profile, clock } = await withAlice();
    clock.advance(DAY_MS);
    const { user, standing, uploadLimitBytes } = await profile();
    expect(user.id).to.equal(alice.userId);
    expect(user.email).to.equal('alice@example.com');
    expect(user.createdAt).to.deep.equal(START);
    expect(user.emailConfirmedAt).to.deep.equal(START);
    expect(standing.plan).to.deep.equal(TRIAL_PLAN);
    expect(standing.trialEndsAt).to.deep.equal(TRIAL_END);
    expect(standing.trialActive).to.equal(true);
    expect(standing.status).to.equal('trialing');
    expect(standing.accessUntil).to.equal(null);
    expect(standing.subscriptionCanceledAt).to.equal(null);
    expect(standing.canWrite).to.equal(true);
    expect(uploadLimitBytes).to.equal(1024);
  });

  it('is trialing until the last millisecond and expired from the trial end on', async () => {
    const { clock, standing } = await withAlice();
    clock.set(new Date(TRIAL_END.getTime() - 1));
    expect(await standing()).to.include({ trialActive: true, status: 'trialing', canWrite: true });
    clock.set(TRIAL_END);
    expect(await standing()).to.include({ trialActive: false, status: 'expired', canWrite: false });
    expect((await standing()).trialEndsAt).to.deep.equal(TRIAL_END);
  });

  it('is expired at sign-up with trialDays 0', async () => {
    const { standing } = await withAlice(withTrialPlan({ trialDays: 0 }));
    const s = await standing();
    expect(s.trialEndsAt).to.deep.equal(START);
    expect(s).to.include({ trialActive: false, status: 'expired', canWrite: false });
  });

  it('is free, with no trial end, on a plan without trial', async () => {
    const { standing, clock } = await withAlice(withTrialPlan({ trialDays: null }));
    clock.advance(1000 * DAY_MS);
    expect(await standing()).to.deep.equal({
      plan: 'trial',
      trialEndsAt: null,
      trialActive: false,
      status: 'free',
      accessUntil: null,
      subscriptionCanceledAt: null,
      canWrite: true,
    });
  });

  it('is free on the new plan after a plan change lifted the trial end', async () => {
    const { hangar, alice, profile, clock } = await withAlice();
    clock.set(TRIAL_END);
    await hangar.changePlan.execute({ email: alice.email, planName: 'pro' });
    const { standing, uploadLimitBytes } = await profile();
    expect(standing.plan).to.deep.equal(PRO_PLAN);
    expect(standing.trialEndsAt).to.equal(null);
    expect(standing.status).to.equal('free');
    expect(standing.canWrite).to.equal(true);
    expect(uploadLimitBytes).to.equal(1024);
  });

  it('is active with access_until in the future, canceled once canceled, and expired when access runs out after the trial', async () => {
    const { hangar, alice, standing, clock } = await withAlice();
    const accessUntil = new Date(TRIAL_END.getTime() + 30 * DAY_MS);
    const canceledAt = new Date(TRIAL_END.getTime() + 3 * DAY_MS);
    clock.set(new Date(TRIAL_END.getTime() + DAY_MS));
    await hangar.setSubscription.execute({ email: alice.email, accessUntil });
    expect(await standing()).to.deep.equal({
      plan: 'trial',
      trialEndsAt: TRIAL_END,
      trialActive: false,
      status: 'active',
      accessUntil,
      subscriptionCanceledAt: null,
      canWrite: true,
    });
    clock.set(canceledAt);
    await hangar.setSubscription.execute({ email: alice.email, subscriptionCanceledAt: canceledAt });
    expect(await standing()).to.deep.equal({
      plan: 'trial',
      trialEndsAt: TRIAL_END,
      trialActive: false,
      status: 'canceled',
      accessUntil,
      subscriptionCanceledAt: canceledAt,
      canWrite: true,
    });
    clock.set(accessUntil);
    expect(await standing()).to.deep.equal({
      plan: 'trial',
      trialEndsAt: TRIAL_END,
      trialActive: false,
      status: 'expired',
      accessUntil,
      subscriptionCanceledAt: canceledAt,
      canWrite: false,
    });
  });

  it('is active during the trial when access is paid for', async () => {
    const { hangar, alice, standing } = await withAlice();
    await hangar.setSubscription.execute({ email: alice.email, accessUntil: new Date(START.getTime() + 60 * DAY_MS) });
    expect(await standing()).to.include({ trialActive: true, status: 'active', canWrite: true });
  });

  it('falls back to the default plan when the account’s plan is no longer on offer', async () => {
    const world = await withAlice();
    await world.hangar.changePlan.execute({ email: world.alice.email, planName: 'pro' });
    const restarted = createHangar(world.ports, { ...world.options, plans: [TRIAL_PLAN] });
    const { standing } = await restarted.getProfile.execute({ userId: world.alice.userId });
    expect(standing.plan).to.deep.equal(TRIAL_PLAN);
  });

  it('refuses an account that no longer exists with UNAUTHORIZED', async () => {
    const { hangar } = createMemoryHangar();
    await expectDomainError(hangar.getProfile.execute({ userId: '00000000-0000-4000-8000-000000000000' }), 'UNAUTHORIZED');
  });
});
