// The API reference page (/docs): Swagger UI over the served OpenAPI document.
// A file of its own, so the page runs with the same Content-Security-Policy as the dashboard (no inline script).
window.addEventListener('DOMContentLoaded', () => {
  window.SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
