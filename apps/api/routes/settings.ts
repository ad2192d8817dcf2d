import { API_KEY_SCOPES } from '../../../core/api-keys/api-key-scopes.js';
import { Type } from '@sinclair/typebox';
import type { Hangar } from '../../../core/hangar.js';
import { defineRoute, type Route } from '../../http/route.js';
import { settingsJson } from '../../http/presenters/presenters.js';
import { ImageMetadataSetting, SettingsBody } from '../schemas.js';
import { errors } from '../../http/error-body.js';

/** Account settings (spec 4.13, 4.14): the upload limit, the custom domain and what image uploads keep of their metadata. */
export function settingsRoutes(hangar: Hangar): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/settings',
      operationId: 'getSettings',
      tag: 'settings',
      auth: { scopes: ['account:read'] },
      summary: 'Read the account settings',
      responses: { 200: SettingsBody, ...errors(401) },
      handler: async ({ ctx, principal }) => {
        ctx.body = settingsJson(await hangar.getSettings.execute({ userId: principal.userId }));
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/settings',
      operationId: 'updateSettings',
      tag: 'settings',
      auth: { scopes: API_KEY_SCOPES },
      summary: 'Change the account settings',
      body: Type.Object(
        {
          max_upload_size_bytes: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: 'Bytes; null goes back to the service default' })),
          custom_domain: Type.Optional(
            Type.Union([Type.String(), Type.Null()], {
              description:
                'Hostname to use (e.g. files.example.com), at most 253 characters; null removes the custom domain. Any string that is not a usable hostname (too long included) is 400 `INVALID_HOSTNAME`.',
            }),
          ),
          refresh_custom_domain: Type.Optional(Type.Boolean({ description: 'Re-run verification and SSL validation at the edge provider' })),
          image_metadata: Type.Optional(ImageMetadataSetting),
        },
        { additionalProperties: false },
      ),
      responses: { 200: SettingsBody, ...errors(400, 401, 409, 502) },
      handler: async ({ ctx, body, principal }) => {
        const settings = await hangar.updateSettings.execute({
          userId: principal.userId,
          maxUploadSizeBytes: body.max_upload_size_bytes,
          customDomain: body.custom_domain,
          refreshCustomDomain: body.refresh_custom_domain,
          imageMetadata: body.image_metadata,
        });
        ctx.body = settingsJson(settings);
      },
    }),
  ];
}
