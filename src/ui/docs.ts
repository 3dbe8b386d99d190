/**
 * The docs page: the spec in Swagger UI (from swagger-ui-dist, served by the fake itself), with
 * "try it" aimed at this fake and the token from a token call filled in as the token header.
 */

interface SwaggerResponse {
  url: string;
  ok: boolean;
  body?: { access_token?: unknown };
  obj?: { access_token?: unknown };
}

interface SwaggerUi {
  preauthorizeApiKey(scheme: string, value: string): void;
}

declare const SwaggerUIBundle: ((options: Record<string, unknown>) => SwaggerUi) & {
  presets: { apis: unknown };
};

declare global {
  interface Window {
    ui?: SwaggerUi;
  }
}

const TOKEN_PATH = /\/api\/v2\/auth\/client_token$/;

async function start(): Promise<void> {
  const res = await fetch('/openapi.json');
  const spec = (await res.json()) as { servers?: unknown; jsonSchemaDialect?: unknown };
  // Swagger UI warns about any dialect but its default; the spec's is the standard 3.1 one.
  delete spec.jsonSchemaDialect;
  // "Try it" calls this fake, wherever it runs.
  spec.servers = [{ url: location.origin, description: 'This fake' }];
  const ui = SwaggerUIBundle({
    spec,
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    tryItOutEnabled: true,
    displayRequestDuration: true,
    defaultModelsExpandDepth: 0,
    responseInterceptor: (response: SwaggerResponse) => {
      const body = response.body ?? response.obj;
      const token = body?.access_token;
      if (
        response.ok &&
        TOKEN_PATH.test(new URL(response.url, location.href).pathname) &&
        typeof token === 'string'
      ) {
        // Every later "try it" sends it in the token header.
        window.ui?.preauthorizeApiKey('accessToken', token);
      }
      return response;
    },
  });
  window.ui = ui;
}

void start();

export {};
