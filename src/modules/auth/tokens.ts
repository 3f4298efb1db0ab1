/**
 * Access tokens: HS256 JWTs (jose) with a fixed algorithm allow-list, `typ: at+jwt` (RFC 9068) and
 * iss/aud/sub/iat/exp/jti, all checked on verify. Refresh tokens: 256-bit opaque random strings,
 * stored only as SHA-256 hashes.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { SignJWT, errors as joseErrors, jwtVerify } from 'jose';
import { AppError } from '../../http/errors.js';

const ALGORITHM = 'HS256';
const ACCESS_TOKEN_TYPE = 'at+jwt';

export interface AccessTokenClaims {
  sub: string;
  /** The user's token_version when the token was issued. */
  ver: number;
}

export interface TokenSettings {
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

export class AccessTokens {
  constructor(
    private readonly key: Uint8Array,
    private readonly settings: TokenSettings,
  ) {
    if (key.byteLength < 32) throw new Error('The token signing key must be at least 256 bits');
  }

  get ttlSeconds(): number {
    return this.settings.ttlSeconds;
  }

  async sign(claims: AccessTokenClaims, now: Date): Promise<string> {
    const iat = Math.floor(now.getTime() / 1000);
    return new SignJWT({ ver: claims.ver })
      .setProtectedHeader({ alg: ALGORITHM, typ: ACCESS_TOKEN_TYPE })
      .setIssuer(this.settings.issuer)
      .setAudience(this.settings.audience)
      .setSubject(claims.sub)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.settings.ttlSeconds)
      .setJti(randomUUID())
      .sign(this.key);
  }

  /** Verifies signature, algorithm, typ and every registered claim; throws AppError on any failure. */
  async verify(token: string, now: Date): Promise<AccessTokenClaims> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: [ALGORITHM],
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        typ: ACCESS_TOKEN_TYPE,
        requiredClaims: ['sub', 'iat', 'exp', 'jti'],
        currentDate: now,
      });
      if (typeof payload.sub !== 'string' || typeof payload.ver !== 'number') throw new Error('claims');
      return { sub: payload.sub, ver: payload.ver };
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
