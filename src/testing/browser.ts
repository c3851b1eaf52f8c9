/**
 * A person's browser, as far as server-rendered pages need one: cookies kept per path (as the
 * server set them), redirects followed by hand so each hop can be inspected, and forms read
 * from the HTML and submitted with their hidden fields. No JavaScript: the pages need none.
 */
export interface Page {
  readonly url: string;
  readonly status: number;
  readonly headers: Headers;
  readonly html: string;
}

export interface Form {
  readonly action: string;
  readonly method: string;
  readonly fields: Record<string, string>;
}

interface Cookie {
  readonly name: string;
  readonly value: string;
  readonly path: string;
  readonly attributes: string;
}

export class Browser {
  readonly #cookies = new Map<string, Cookie>();
  /** Set-Cookie lines as received, for assertions on their attributes. */
  readonly setCookies: string[] = [];

  /** GET `url`, following redirects within `stopAt`'s reach: returns the first page that is not a redirect, or the redirect to a URL `stopAt` accepts. */
  async open(url: string, options: { stopAt?: (url: string) => boolean } = {}): Promise<Page> {
    return this.#follow(await this.#fetch(url, { method: 'GET' }), options.stopAt);
  }

  /** Submits a form of `page` (the first, or the one whose action contains `actionIncludes`), with `values` over its fields. */
  async submit(
    page: Page,
    values: Record<string, string> = {},
    options: {
      actionIncludes?: string;
      button?: { name: string; value: string };
      stopAt?: (url: string) => boolean;
    } = {},
  ): Promise<Page> {
    const forms = readForms(page);
    const form = options.actionIncludes
      ? forms.find((f) => f.action.includes(options.actionIncludes as string))
      : forms[0];
    if (!form)
      throw new Error(
        `no form${options.actionIncludes ? ` with ${options.actionIncludes}` : ''} on ${page.url}`,
      );
    const body = new URLSearchParams({ ...form.fields, ...values });
    if (options.button) body.set(options.button.name, options.button.value);
    const response = await this.#fetch(new URL(form.action, page.url).href, {
      method: form.method.toUpperCase(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    });
    return this.#follow(response, options.stopAt);
  }

  cookieNames(): string[] {
    return [...this.#cookies.values()].map((c) => c.name);
  }

  async #follow(first: Page, stopAt?: (url: string) => boolean): Promise<Page> {
    let page = first;
    for (let hops = 0; hops < 20; hops++) {
      const location = page.headers.get('location');
      if (page.status < 300 || page.status >= 400 || !location) return page;
      const next = new URL(location, page.url).href;
      if (stopAt?.(next)) return { ...page, url: next };
      page = await this.#fetch(next, { method: 'GET' });
    }
    throw new Error('too many redirects');
  }

  async #fetch(url: string, init: RequestInit): Promise<Page> {
    const target = new URL(url);
    const cookie = [...this.#cookies.values()]
      .filter((c) => target.pathname.startsWith(c.path))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
    });
    for (const line of response.headers.getSetCookie()) this.#store(line, target);
    return { url, status: response.status, headers: response.headers, html: await response.text() };
  }

  #store(line: string, from: URL) {
    this.setCookies.push(line);
    const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    const path = attributes.find((a) => /^path=/i.test(a))?.slice(5) ?? from.pathname;
    const key = `${name} ${path}`;
    const expired =
      attributes.some((a) => /^expires=/i.test(a) && Date.parse(a.slice(8)) < Date.now()) ||
      attributes.some((a) => /^max-age=0$/i.test(a));
    if (expired || value === '') this.#cookies.delete(key);
    else this.#cookies.set(key, { name, value, path, attributes: attributes.join('; ') });
  }
}

const decode = (value: string) =>
  value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

const attribute = (tag: string, name: string) =>
  new RegExp(`\\s${name}="([^"]*)"`, 'i').exec(tag)?.[1];

/** Every form of the page with its hidden and pre-filled fields (buttons excluded). */
export function readForms(page: Page): Form[] {
  const forms: Form[] = [];
  for (const match of page.html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)) {
    const [, open = '', inner = ''] = match;
    const fields: Record<string, string> = {};
    for (const input of inner.matchAll(/<input\b[^>]*>/gi)) {
      const name = attribute(input[0], 'name');
      if (name) fields[name] = decode(attribute(input[0], 'value') ?? '');
    }
    forms.push({
      action: decode(attribute(open, 'action') ?? page.url),
      method: attribute(open, 'method') ?? 'get',
      fields,
    });
  }
  return forms;
}
