// Lint rules: typescript-eslint's recommended set, type-aware where it catches real bugs (floating promises).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', 'web/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // The console's .tsx too: each file is checked with its own tsconfig (web/tsconfig.json for web/).
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // One owner per table: a module reaches another module through its service, never into its repository (the
    // composition root only wires services, so it imports no repository either).
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!\\./[^/]+$).*\\.repository(\\.js)?$',
              message:
                'A module reaches another module through its service, never its repository (docs/architecture.md).',
            },
          ],
        },
      ],
    },
  },
  {
    // A module is entered through its public surface only: its service (and the types it exports), its schemas, the
    // license module's gate, the classifier's index. Anything else of another module is its own business.
    files: ['src/modules/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!\\./[^/]+$).*\\.repository(\\.js)?$',
              message:
                'A module reaches another module through its service, never its repository (docs/architecture.md).',
            },
            {
              regex: '^\\.\\./[^./][^/]*/(?![^/]+\\.(service|schemas|gate)\\.js$|index\\.js$)[^/]+$',
              message:
                'Another module is entered through its service, schemas, gate or index only (docs/architecture.md).',
            },
          ],
        },
      ],
    },
  },
  {
    // Time comes from the injected clock (src/clock.ts), so that expiry, lifetimes and ages are tested without waiting.
    // Where real time is the point (phase timings, waits, a thread's time slice), the line says so in a disable comment.
    files: ['src/**/*.ts'],
    ignores: ['src/clock.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Take the time from the injected Clock (src/clock.ts).' },
        { object: 'performance', property: 'now', message: 'Take the time from the injected Clock (monotonicMs).' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'Take the time from the injected Clock (src/clock.ts).',
        },
      ],
    },
  },
  {
    // node:test's describe/it return promises the runner tracks itself.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-floating-promises': 'off' },
  },
);
