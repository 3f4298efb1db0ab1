/**
 * Password hashing (Argon2id, OWASP parameters, computed on libuv's thread pool so the event loop
 * stays free) and the password rules of docs/security.md: 12–256 characters, any Unicode, no composition
 * rules, no truncation, common passwords refused.
 */
import { hash, verify, Algorithm } from '@node-rs/argon2';
import { dictionary } from '@zxcvbn-ts/language-common';
import type { ProblemFieldError } from '../http/errors.js';

// OWASP Password Storage Cheat Sheet minimum for Argon2id: m = 19 MiB, t = 2, p = 1.
const ARGON2_OPTIONS = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

// ~49k passwords from leaked-password corpora, shipped by @zxcvbn-ts/language-common (MIT).
const COMMON_PASSWORDS: ReadonlySet<string> = new Set(
  (dictionary as Record<string, readonly string[]>)['passwords-common'] ?? [],
);
if (COMMON_PASSWORDS.size < 10_000) throw new Error('common-password list failed to load');

export function hashPassword(password: string): Promise<string> {
  return hash(password.normalize('NFC'), ARGON2_OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password.normalize('NFC'));
  } catch {
    return false;
  }
}

/**
 * The two operations as one object, which the services call through: a test counts the verifications a login
 * runs (an unknown user must cost one, as a wrong password does) without timing anything.
 */
export const passwordHashing = { hash: hashPassword, verify: verifyPassword };

/**
 * Returns why a password is refused, or undefined when it is acceptable. A password is "common"
 * when it, or it without its trailing digits and symbols (`password123456`), is in the list, or
 * when it is one character repeated.
 */
export function passwordProblem(password: string, username?: string): string | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (length > PASSWORD_MAX_LENGTH) return `must be at most ${PASSWORD_MAX_LENGTH} characters`;
  const lowered = password.normalize('NFC').toLowerCase();
  const stem = lowered.replace(/[\d\W_]+$/u, '');
  if (COMMON_PASSWORDS.has(lowered) || (stem.length > 0 && COMMON_PASSWORDS.has(stem)) || /^(.)\1*$/u.test(lowered)) {
    return 'is too common; choose a longer phrase that is not on lists of leaked passwords';
  }
  if (username && lowered.includes(username.toLowerCase())) return 'must not contain the username';
  return undefined;
}

/** The validation error for a refused password, as a problem `errors[]` item. */
export function passwordErrors(password: string, username?: string): ProblemFieldError[] {
  const problem = passwordProblem(password, username);
  return problem ? [{ path: '/password', message: `password ${problem}` }] : [];
}
