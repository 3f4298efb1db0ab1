#!/usr/bin/env node
/**
 * The `fieldlens` command: serve (what `npm start` runs), license (vendor tools, clock reset), audit (chain check),
 * users (password reset).
 */
const USAGE = `Usage: fieldlens <command>

Commands:
  serve                 start the HTTP service (configuration from the environment; see README)
  license keygen|issue|inspect …   vendor tools for signed .service-license files
  license reset-clock   lower the stored latest-seen time after a far-future clock (audited)
  audit verify          check the audit log's hash chain in the configured database
  users reset-password USERNAME [--password-stdin]
                        set a new password (printed once unless read from stdin), end its sessions (audited)
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve': {
      const { serveFromCli } = await import('./server.js');
      await serveFromCli();
      return -1; // keeps running
    }
    case 'license': {
      const { runLicenseCommand } = await import('./cli/license.command.js');
      return runLicenseCommand(rest, {
        stdout: (text) => process.stdout.write(text),
        stderr: (text) => process.stderr.write(text),
      });
    }
    case 'audit': {
      const { runAuditCommand } = await import('./cli/audit.command.js');
      return runAuditCommand(rest, {
        stdout: (text) => process.stdout.write(text),
        stderr: (text) => process.stderr.write(text),
      });
    }
    case 'users': {
      const { runUsersCommand } = await import('./cli/users.command.js');
      return runUsersCommand(rest, {
        stdout: (text) => process.stdout.write(text),
        stderr: (text) => process.stderr.write(text),
      });
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`fieldlens: unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`fieldlens: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
