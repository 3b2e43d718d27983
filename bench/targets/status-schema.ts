/** The response schema of (j)'s `GET /status`, the same for vigil and its bare twin. */
export const statusSchema = {
  type: 'object',
  properties: {
    ok: { type: 'boolean' },
    service: { type: 'string' },
    items: { type: 'array', items: { type: 'integer' } },
  },
} as const;
