import { useEffect, useState } from 'preact/hooks';
import { api, isSignedIn, onAuthChange, restoreSession, sessionFromFragment, signOut, startSession } from './api.js';
import { useLoad } from './components.js';
import { navigate, useRoute } from './router.js';
import { ActivityScreen } from './screens/activity.js';
import { AdminScreen } from './screens/admin.js';
import { ForgotPassword, Register, ResetPassword, SignIn } from './screens/auth.js';
import { FilesScreen } from './screens/files.js';
import { KeysScreen } from './screens/keys.js';
import { SecurityScreen } from './screens/security.js';
import { SettingsScreen } from './screens/settings.js';
import { SsoLanding } from './screens/sso.js';
import { planState, UsageScreen } from './screens/usage.js';
import { WebhooksScreen } from './screens/webhooks.js';
import type { Profile } from './types.js';

const SCREENS = [
  { path: '/files', label: 'Files', render: () => <FilesScreen /> },
  { path: '/keys', label: 'API keys', render: () => <KeysScreen /> },
  { path: '/settings', label: 'Settings', render: () => <SettingsScreen /> },
  { path: '/usage', label: 'Usage', render: () => <UsageScreen /> },
  { path: '/activity', label: 'Activity', render: () => <ActivityScreen /> },
];
/** Administrators only (docs/admin.md): shown in the navigation when the profile's role is `admin`. */
const ADMIN_SCREEN = { path: '/admin', label: 'Admin', render: () => <AdminScreen /> };
/** Reached from the account area of the header (beside "Sign out"), not the main navigation: it keeps the phone header at two rows. */
const ACCOUNT_SCREENS = [
  { path: '/webhooks', label: 'Webhooks', render: () => <WebhooksScreen /> },
  { path: '/security', label: 'Security', render: () => <SecurityScreen /> },
];

/**
 * The dashboard: lands signed in from the confirmation link (session in the fragment), else
 * restores the session from the stored refresh token, then shows the screens or the sign-in forms.
 */
export function App() {
  const [ready, setReady] = useState(false);
  const [signedIn, setSignedIn] = useState(isSignedIn());
  const [notice, setNotice] = useState<string>();
  const route = useRoute();

  useEffect(() => {
    const off = onAuthChange(setSignedIn);
    const fromLink = location.hash.includes('access_token=') ? sessionFromFragment(location.hash) : undefined;
    if (fromLink) {
      // The confirmation link's tokens: adopt them and wipe them from the address bar and history.
      startSession(fromLink);
      navigate('/files', true);
      setReady(true);
    } else {
      // A failed restore leaves the visitor signed out, on the sign-in screen.
      restoreSession().then(
        () => setReady(true),
        () => setReady(true),
      );
    }
    return off;
  }, []);

  if (!ready)
    return (
      <p class="loading" role="status">
        Loading…
      </p>
    );
  // The mailed reset link opens this screen whether or not this browser is signed in.
  if (route.path === '/reset') return <ResetPassword token={route.params.get('token') ?? ''} />;
  // The single sign-on callback lands here with a one-time code, signed in or not.
  if (route.path === '/sso') return <SsoLanding params={route.params} />;

  if (!signedIn) {
    switch (route.path) {
      case '/register':
        return <Register invite={route.params.get('invite') ?? undefined} />;
      case '/forgot':
        return <ForgotPassword />;
      default:
        return <SignIn notice={notice} />;
    }
  }
  return (
    <Shell
      path={route.path}
      onSignOut={async () => {
        await signOut();
        setNotice('You are signed out.');
        navigate('/signin', true);
      }}
    />
  );
}

function Shell({ path, onSignOut }: { path: string; onSignOut: () => void }) {
  const profile = useLoad(() => api<Profile>('/profile'), []);
  const isAdmin = profile.data?.role === 'admin';
  const screens = isAdmin ? [...SCREENS, ADMIN_SCREEN] : SCREENS;
  const screen = [...screens, ...ACCOUNT_SCREENS].find((s) => s.path === path);
  useEffect(() => {
    // The Admin screen waits for the profile before it is known to exist.
    if (!screen && !(path === ADMIN_SCREEN.path && profile.loading)) navigate('/files', true);
  }, [screen, profile.loading]);
  // Move focus to the new screen's heading, so keyboard and screen reader users start there.
  useEffect(() => {
    const heading = document.querySelector<HTMLElement>('main h1');
    if (heading && document.activeElement?.closest('nav.main-nav')) {
      heading.tabIndex = -1;
      heading.focus();
    }
  }, [path]);
  return (
    <>
      <a
        class="skip"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href="#/files">
          Hangar
        </a>
        <nav class="main-nav" aria-label="Dashboard">
          {screens.map((s) => (
            <a key={s.path} href={`#${s.path}`} aria-current={s.path === path ? 'page' : undefined}>
              {s.label}
            </a>
          ))}
        </nav>
        <div class="account">
          {profile.data && (
            <span class="muted small account-line">
              <span class="account-email" title={profile.data.user.email}>
                {profile.data.user.email}
              </span>
              <span class="account-plan">&nbsp;· {planState(profile.data)}</span>
            </span>
          )}
          {ACCOUNT_SCREENS.map((s) => (
            <a key={s.path} class="button secondary small" href={`#${s.path}`} aria-current={s.path === path ? 'page' : undefined}>
              {s.label}
            </a>
          ))}
          <button type="button" class="secondary small" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {screen?.render()}
      </main>
    </>
  );
}
