/**
 * The relying party's side of OpenID Connect, through `openid-client`: discovery (once, retried after a failure), the
 * authorization URL (code flow, PKCE S256, state, nonce) and the code exchange, in which the library checks the state,
 * the ID token's signature, issuer, audience, expiry and nonce, and sends the PKCE verifier.
 */
import * as client from 'openid-client';
import { isLoopbackHost, type OidcConfig } from '../../config.js';

/** What the provider says about the user who signed in: the ID token's claims, with userinfo's where the token lacks one. */
export type OidcClaims = Record<string, unknown> & { iss: string; sub: string };

const DISCOVERY_TIMEOUT_SECONDS = 10;

export class OidcClient {
  private configuration: Promise<client.Configuration> | undefined;

  constructor(private readonly settings: OidcConfig) {}

  private discover(): Promise<client.Configuration> {
    this.configuration ??= (async () => {
      const issuer = new URL(this.settings.issuer);
      // Plain http only for a provider on this machine (config.ts refuses any other http issuer).
      const insecure = issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname);
      const auth =
        this.settings.clientSecret === undefined ? client.None() : client.ClientSecretBasic(this.settings.clientSecret);
      const config = await client.discovery(
        issuer,
        this.settings.clientId,
        { redirect_uris: [this.settings.redirectUri] },
        auth,
        {
          timeout: DISCOVERY_TIMEOUT_SECONDS,
          ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
        },
      );
      return config;
    })().catch((error: unknown) => {
      this.configuration = undefined;
      throw error;
    });
    return this.configuration;
  }

  /** The provider's authorization URL for a new sign-in. */
  async authorizationUrl(checks: { state: string; nonce: string; codeVerifier: string }): Promise<URL> {
    const config = await this.discover();
    return client.buildAuthorizationUrl(config, {
      redirect_uri: this.settings.redirectUri,
      scope: 'openid profile email',
      state: checks.state,
      nonce: checks.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(checks.codeVerifier),
      code_challenge_method: 'S256',
    });
  }

  /**
   * Exchanges the code of a callback (`callbackUrl`: the redirect URI with the query the provider sent) and answers the
   * verified claims; throws when the provider refused, the state or nonce differ, or the ID token does not verify.
   */
  async exchange(
    callbackUrl: URL,
    checks: { state: string; nonce: string; codeVerifier: string },
  ): Promise<OidcClaims> {
    const config = await this.discover();
    const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: checks.codeVerifier,
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      idTokenExpected: true,
    });
    const idToken = tokens.claims();
    if (idToken === undefined) throw new Error('the provider returned no ID token');
    let claims: Record<string, unknown> = { ...idToken };
    // Many providers put groups only in userinfo unless told otherwise; ask it when the ID token lacks the claim.
    if (!(this.settings.rolesClaim in idToken) && config.serverMetadata().userinfo_endpoint !== undefined) {
      const userinfo = await client.fetchUserInfo(config, tokens.access_token, idToken.sub);
      claims = { ...userinfo, ...idToken };
    }
    return { ...claims, iss: idToken.iss, sub: idToken.sub };
  }
}
