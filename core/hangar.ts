import type { AccountOptions } from './accounts/account-options.js';
import { Authenticate } from './accounts/authenticate.js';
import { ConfirmEmail } from './accounts/confirm-email.js';
import { LogIn } from './accounts/log-in.js';
import { LogOut } from './accounts/log-out.js';
import type { Mailer } from './accounts/mailer.js';
import type { OneTimeTokenRepository } from './accounts/one-time-token-repository.js';
import { OneTimeLinks } from './accounts/one-time-links.js';
import type { PasswordHasher } from './accounts/password-hasher.js';
import { RefreshSession } from './accounts/refresh-session.js';
import { RegisterAccount } from './accounts/register-account.js';
import { RequestPasswordReset } from './accounts/request-password-reset.js';
import { ResetPassword } from './accounts/reset-password.js';
import { SessionIssuer } from './accounts/session-issuer.js';
import type { SessionRepository } from './accounts/session-repository.js';
import type { TokenSigner } from './accounts/token-signer.js';
import type { UserRepository } from './accounts/user-repository.js';
import type { ApiKeyRepository } from './api-keys/api-key-repository.js';
import { CreateApiKey } from './api-keys/create-api-key.js';
import { ListApiKeys } from './api-keys/list-api-keys.js';
import { RevokeApiKey } from './api-keys/revoke-api-key.js';
import type { BlobStore } from './files/blob-store.js';
import { BulkDeleteFiles } from './files/bulk-delete-files.js';
import { DeleteFile } from './files/delete-file.js';
import type { FileOptions } from './files/file-options.js';
import type { FileRepository } from './files/file-repository.js';
import { FileAddresses } from './files/file-view.js';
import { GetFile } from './files/get-file.js';
import { ListFiles } from './files/list-files.js';
import { ReadPublicFile } from './files/read-public-file.js';
import { UploadFile } from './files/upload-file.js';
import { GetSettings } from './settings/get-settings.js';
import { UpdateSettings } from './settings/update-settings.js';
import { CheckHealth } from './shared/check-health.js';
import type { Clock } from './shared/clock.js';
import type { HealthProbe } from './shared/health.js';
import type { IdGenerator, SecretDigest } from './shared/ids.js';

/** Every port the core needs, one adapter each. */
export interface HangarPorts {
  users: UserRepository;
  tokens: OneTimeTokenRepository;
  sessions: SessionRepository;
  apiKeys: ApiKeyRepository;
  files: FileRepository;
  blobs: BlobStore;
  /** Should return quickly (queue the message): requests wait for it. */
  mailer: Mailer;
  passwords: PasswordHasher;
  signer: TokenSigner;
  ids: IdGenerator;
  digest: SecretDigest;
  clock: Clock;
  /** Dependencies asked by `checkHealth` (database, blob store). */
  probes: readonly HealthProbe[];
}

/** Service-wide options, parsed from configuration by the host. */
export type HangarOptions = AccountOptions & FileOptions;

/** Every use case of the core, wired to one set of ports. */
export type Hangar = ReturnType<typeof createHangar>;

/**
 * Wires every use case to `ports`. This is how a host embeds the core: build the ports (in-memory,
 * SQLite, local disk… or your own), call this, and call `hangar.uploadFile.execute(…)` and so on.
 * No container is needed; apps/server does the same through inversify.
 */
export function createHangar(ports: HangarPorts, options: HangarOptions) {
  const { users, tokens, sessions, apiKeys, files, blobs, mailer, passwords, signer, ids, digest, clock } = ports;
  const issuer = new SessionIssuer({ sessions, signer, ids, digest, clock });
  const links = new OneTimeLinks({ users, tokens, mailer, ids, digest, clock, options });
  const addresses = new FileAddresses(options);
  const getSettings = new GetSettings({ users, addresses, options });
  return {
    registerAccount: new RegisterAccount({ users, links, passwords, ids, clock, options }),
    confirmEmail: new ConfirmEmail({ users, tokens, issuer, digest, clock }),
    logIn: new LogIn({ users, passwords, issuer }),
    refreshSession: new RefreshSession({ sessions, issuer, ids, digest, clock }),
    logOut: new LogOut({ sessions, clock }),
    requestPasswordReset: new RequestPasswordReset({ users, links, options }),
    resetPassword: new ResetPassword({ users, tokens, sessions, passwords, digest, clock }),
    authenticate: new Authenticate({ apiKeys, sessions, signer, digest, clock }),
    createApiKey: new CreateApiKey({ apiKeys, ids, digest, clock }),
    listApiKeys: new ListApiKeys({ apiKeys }),
    revokeApiKey: new RevokeApiKey({ apiKeys }),
    uploadFile: new UploadFile({ users, files, blobs, addresses, ids, clock, options }),
    listFiles: new ListFiles({ files, addresses, options }),
    getFile: new GetFile({ files, addresses }),
    deleteFile: new DeleteFile({ files, blobs }),
    bulkDeleteFiles: new BulkDeleteFiles({ files, blobs }),
    readPublicFile: new ReadPublicFile({ files, blobs }),
    getSettings,
    updateSettings: new UpdateSettings({ users, settings: getSettings, clock, options }),
    checkHealth: new CheckHealth({ probes: ports.probes }),
  };
}
