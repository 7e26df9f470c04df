/** Broker credentials never reach a log line or the health report. */

/** The URL with any user name and password removed, for logs and health. */
export function redactUrl(url: string): string {
  if (!URL.canParse(url)) return '(unparsable url)';
  const u = new URL(url);
  u.username = '';
  u.password = '';
  return u.toString();
}

/** The password in the URL, as written and percent-decoded, so both can be masked. */
function urlPasswords(url: string): string[] {
  if (!URL.canParse(url)) return [];
  const raw = new URL(url).password;
  if (!raw) return [];
  const bytes = raw.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) =>
    String.fromCharCode(Number.parseInt(h, 16)),
  );
  return [raw, Buffer.from(bytes, 'latin1').toString('utf8')];
}

/** The message of an error (or anything thrown) with the password, and the URLs', masked as `***`. */
export function redactor(
  url: string | readonly string[],
  password: string | undefined,
): (e: unknown) => string {
  const urls = typeof url === 'string' ? [url] : url;
  const secrets = [password, ...urls.flatMap(urlPasswords)].filter((s): s is string => !!s && s.length > 0);
  return (e) => {
    let s = e instanceof Error ? e.message : String(e);
    for (const secret of secrets) s = s.split(secret).join('***');
    return s;
  };
}
