// Debug mode (`ksm.debug.logRequests`): each request as an equivalent curl command, so a
// user can replay it outside VS Code. The key is always written as `***`.
import { redactSecrets } from './errors';

export interface CurlRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  json?: string;
  /** Multipart fields: plain values, or files sent from a path. */
  form?: Array<{ name: string; value: string } | { name: string; path: string; filename: string }>;
}

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function toCurl(request: CurlRequest, secrets: ReadonlyArray<string | undefined>): string {
  const parts = ['curl', '-X', request.method, quote(request.url)];
  for (const [name, value] of Object.entries(request.headers)) {
    if (request.form && name.toLowerCase() === 'content-type') continue; // curl -F sets its own boundary
    if (request.form && name.toLowerCase() === 'content-length') continue;
    const shown = name.toLowerCase() === 'authorization' ? 'Bearer ***' : value;
    parts.push('-H', quote(`${name}: ${shown}`));
  }
  if (request.json !== undefined) parts.push('--data-raw', quote(request.json));
  for (const field of request.form ?? []) {
    if ('path' in field) parts.push('-F', quote(`${field.name}=@${field.path};filename=${field.filename.replace(/[";]/g, '_')}`));
    else parts.push('-F', quote(`${field.name}=${field.value}`));
  }
  return redactSecrets(parts.join(' '), secrets);
}
