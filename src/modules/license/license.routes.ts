import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { callerOf } from '../../http/authentication.js';
import { AppError } from '../../http/errors.js';
import type { Services } from '../../services.js';
import type { LicenseUploadReader } from './license.service.js';
import { LICENSE_FILE_EXTENSION, MAX_LICENSE_FILE_BYTES } from './license-file.js';
import { LicenseImportBody, LicenseImportResponse, LicenseStatusResponse } from './license.schemas.js';

const TOO_LARGE = `The license file is larger than ${MAX_LICENSE_FILE_BYTES / 1024} KiB`;

/** The multipart transport of an import: the first file part must be named `file`; size limits map to 413. */
function uploadReader(request: FastifyRequest): LicenseUploadReader {
  return async () => {
    let part;
    try {
      part = await request.file();
    } catch (error) {
      throw transportError(error);
    }
    if (part === undefined || part.fieldname !== 'file') {
      throw new AppError('validation_failed', 'Send the license file in the multipart part "file"', {
        errors: [{ path: '/file', message: 'is required' }],
      });
    }
    let bytes: Buffer;
    try {
      bytes = await part.toBuffer();
    } catch (error) {
      throw transportError(error);
    }
    // toBuffer checks the limit per chunk, so a file cut at the limit by its last chunk comes back as the first 64 KiB
    // without an error; busboy's flag tells.
    if (part.file.truncated) throw new AppError('payload_too_large', TOO_LARGE);
    return { filename: part.filename, bytes };
  };
}

function transportError(error: unknown): AppError {
  if ((error as { statusCode?: unknown } | null)?.statusCode === 413)
    return new AppError('payload_too_large', TOO_LARGE);
  return new AppError('validation_failed', 'The multipart body is malformed', { cause: error });
}

export const licenseRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { license } = services;
  // Scoped to this plugin: only the import route accepts multipart, and never more than one small file.
  await app.register(multipart, {
    limits: { fileSize: MAX_LICENSE_FILE_BYTES, files: 1, fields: 4, fieldSize: 1024, parts: 5, headerPairs: 20 },
    throwFileSizeLimit: true,
  });

  app.get(
    '/license/status',
    {
      config: { access: 'license:read' },
      schema: {
        operationId: 'getLicenseStatus',
        summary: 'License status',
        description:
          'The license in force (the built-in 30-day trial `trial_mock` until one is imported): tier, raw and computed status, expiry, quotas, live usage (data sources other than the sample ones; users that are not disabled) and feature switches.',
        tags: ['license'],
        response: { 200: LicenseStatusResponse },
      },
    },
    async () => license.getStatus(),
  );

  app.post(
    '/license/import',
    {
      config: { access: 'license:write' },
      // The body is a multipart stream that the handler reads and checks itself; the schema documents it.
      validatorCompiler: () => () => true,
      schema: {
        operationId: 'importLicense',
        summary: 'Import a license file',
        description: `multipart/form-data with the file in the part \`file\`; its name must end in \`${LICENSE_FILE_EXTENSION}\`, at most ${MAX_LICENSE_FILE_BYTES / 1024} KiB. The signature is checked with the trusted vendor key; a file that does not verify, is expired or is not yet valid is refused (400 license_invalid) and the previous license stays in force. Importing a paid license removes the built-in sample data. Every attempt is audit-logged.`,
        tags: ['license'],
        consumes: ['multipart/form-data'],
        body: LicenseImportBody,
        response: { 200: LicenseImportResponse },
      },
    },
    async (request) => {
      if (!request.isMultipart()) {
        throw new AppError(
          'unsupported_media_type',
          `Send the license as multipart/form-data with the file in the part "file"`,
        );
      }
      return license.importLicense(callerOf(request), uploadReader(request));
    },
  );
};
