import { Type } from '@sinclair/typebox';

/**
 * The body of every error answer of both servers, `{ code, message, request_id, details? }`
 * (spec 7; rendered by errors-middleware.ts, the status from error-status.ts). Routes name it in
 * their `responses`, and the OpenAPI document publishes it as the `Error` component.
 */
export const ErrorBody = Type.Object(
  {
    code: Type.String({ description: 'Stable SCREAMING_SNAKE_CASE code' }),
    message: Type.String(),
    request_id: Type.String(),
    details: Type.Optional(Type.Unknown()),
  },
  {
    $id: 'Error',
    examples: [
      {
        code: 'FILE_TOO_LARGE',
        message: "The file is larger than this account's upload limit of 104857600 bytes.",
        request_id: '5b0e8f3a-1c2d-4e6f-8a9b-0c1d2e3f4a5b',
        details: { max_upload_size_bytes: 104857600 },
      },
    ],
  },
);

/** Error responses, by status, for a route's `responses`: `errors(400, 404)` is `{ 400: ErrorBody, 404: ErrorBody }`. */
export const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, ErrorBody]));
