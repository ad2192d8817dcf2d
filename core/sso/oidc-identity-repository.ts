/** The link between an account and a person at an OpenID provider. */
export interface OidcIdentityLink {
  issuer: string;
  subject: string;
  userId: string;
  /** The e-mail address the provider gave when the link was made. */
  email: string | null;
  createdAt: Date;
}

/** Port: links between accounts and OIDC identities, unique by (issuer, subject). */
export interface OidcIdentityRepository {
  /** The link of `(issuer, subject)`, or undefined. */
  find(options: { issuer: string; subject: string }): Promise<OidcIdentityLink | undefined>;
  /**
   * Stores a link.
   * @returns false (and stores nothing) when `(issuer, subject)` is already linked
   */
  create(link: OidcIdentityLink): Promise<boolean>;
}
