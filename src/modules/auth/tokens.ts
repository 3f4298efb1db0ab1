/**
 * Access tokens: HS256 JWTs (jose) with a fixed algorithm allow-list, `typ: at+jwt` (RFC 9068) and
 * iss/aud/sub/iat/exp/jti, all checked on verify. Refresh tokens: 256-bit opaque random strings,
 * stored only as SHA-256 hashes.
 */
import { createHash, randomBytes, randomUUID, webcrypto } from 'node:crypto';
import { SignJWT, errors as joseErrors, jwtVerify } from 'jose';
import { AppError } from '../../http/errors.js';

const ALGORITHM = 'HS256';
const ACCESS_TOKEN_TYPE = 'at+jwt';

export interface AccessTokenClaims {
  sub: string;
  /** The user's token_version when the token was issued. */
  ver: number;
  /** The login session the token belongs to: revoking the session (logout, refresh-token reuse) ends the token at once. */
  sid: string;
}

export interface TokenSettings {
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

/** How many verified tokens are remembered (a few MB at most). */
const VERIFIED_CACHE_SIZE = 10_000;

export class AccessTokens {
  /**
   * Tokens whose signature and claims already verified, with their claims and expiry, keyed by their signature (the
   * third segment: a short key is cheaper to hash than the whole token, which every request presents as a new string).
   * A hit needs the whole text to be equal, so a token with another header or payload behind a genuine signature is a
   * miss and goes to the HMAC, which refuses it. A hit skips only the HMAC: expiry is still checked, and revocation
   * never relied on the token (the user and the token's session are checked on every request).
   */
  private readonly verified = new Map<string, { token: string; claims: AccessTokenClaims; expMs: number }>();
  // Imported once: handing jose raw bytes would re-import the key on every sign and verify (~150 µs each).
  private readonly key: Promise<webcrypto.CryptoKey>;

  constructor(
    secret: Uint8Array,
    private readonly settings: TokenSettings,
  ) {
    if (secret.byteLength < 32) throw new Error('The token signing key must be at least 256 bits');
    this.key = webcrypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  }

  get ttlSeconds(): number {
    return this.settings.ttlSeconds;
  }

  async sign(claims: AccessTokenClaims, now: Date): Promise<string> {
    const iat = Math.floor(now.getTime() / 1000);
    return new SignJWT({ ver: claims.ver, sid: claims.sid })
      .setProtectedHeader({ alg: ALGORITHM, typ: ACCESS_TOKEN_TYPE })
      .setIssuer(this.settings.issuer)
      .setAudience(this.settings.audience)
      .setSubject(claims.sub)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.settings.ttlSeconds)
      .setJti(randomUUID())
      .sign(await this.key);
  }

  /** The claims of a token this instance has already verified, while it has not expired; else undefined (then `verify`). */
  verifiedClaims(token: string, now: Date): AccessTokenClaims | undefined {
    const entry = this.verified.get(signatureOf(token));
    if (entry === undefined || entry.token !== token || now.getTime() >= entry.expMs) return undefined;
    return entry.claims;
  }

  /** Verifies signature, algorithm, typ and every registered claim; throws AppError on any failure. */
  async verify(token: string, now: Date): Promise<AccessTokenClaims> {
    const cached = this.verifiedClaims(token, now);
    if (cached !== undefined) return cached;
    try {
      const { payload } = await jwtVerify(token, await this.key, {
        algorithms: [ALGORITHM],
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        typ: ACCESS_TOKEN_TYPE,
        requiredClaims: ['sub', 'iat', 'exp', 'jti'],
        currentDate: now,
      });
      if (
        typeof payload.sub !== 'string' ||
        typeof payload.ver !== 'number' ||
        typeof payload.sid !== 'string' ||
        typeof payload.exp !== 'number'
      ) {
        throw new Error('claims');
      }
      const claims = { sub: payload.sub, ver: payload.ver, sid: payload.sid };
      if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.delete(this.verified.keys().next().value as string);
      this.verified.set(signatureOf(token), { token, claims, expMs: payload.exp * 1000 });
      return claims;
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) {
        throw new AppError('token_expired', 'The access token has expired; use the refresh token to get a new one', {
          headers: { 'www-authenticate': 'Bearer error="invalid_token", error_description="expired"' },
        });
      }
      throw invalidToken();
    }
  }
}

/** The signature segment of a compact JWT (the whole text when it has no dot). */
function signatureOf(token: string): string {
  return token.slice(token.lastIndexOf('.') + 1);
}

export function invalidToken(): AppError {
  return new AppError('unauthorized', 'The access token is not valid', {
    headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
  });
}

/** A new opaque refresh token (256 bits of CSPRNG output, base64url). */
export function newRefreshToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A random 256-bit signing key, base64url; generated once per deployment when none is configured. */
export function newSigningKey(): string {
  return randomBytes(32).toString('base64url');
}
