import type { Configuration } from 'oidc-provider';

/**
 * The HTML of the embedded provider: its login page and the pages
 * oidc-provider would otherwise render with its defaults (which load web
 * fonts from a third party and warn on every use).
 */

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** `body` is trusted HTML; callers escape what they interpolate. */
function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} - development identity provider</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 22rem; margin: 4rem auto; padding: 0 1rem; }
label { display: block; margin-top: 1rem; }
input { width: 100%; padding: .5rem; box-sizing: border-box; }
button { margin-top: 1.5rem; margin-right: .5rem; padding: .5rem 1rem; }
.error { color: #b00020; }
.note { color: #555; font-size: .85rem; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${body}
</body>
</html>
`;
}

export function messagePage(title: string, message: string): string {
  return layout(title, `<p>${escapeHtml(message)}</p>`);
}

export function loginPage(uid: string, username: string, error: string | null): string {
  const action = `/interaction/${encodeURIComponent(uid)}`;
  return layout('Sign in', `<p class="note">Development identity provider. The demo credentials are printed by the server at start.</p>
${error ? `<p role="alert" class="error">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${escapeHtml(action)}" autocomplete="off">
<label for="username">Username</label>
<input id="username" name="username" required autofocus value="${escapeHtml(username)}">
<label for="password">Password</label>
<input id="password" name="password" type="password" required>
<button type="submit">Sign in</button>
</form>
<p><a href="${escapeHtml(action)}/abort">Cancel</a></p>`);
}

type Pages = Required<Pick<Configuration, 'renderError'>> & {
  logoutSource: NonNullable<NonNullable<NonNullable<Configuration['features']>['rpInitiatedLogout']>['logoutSource']>;
  postLogoutSuccessSource: NonNullable<
    NonNullable<NonNullable<Configuration['features']>['rpInitiatedLogout']>['postLogoutSuccessSource']
  >;
};

export const providerPages: Pages = {
  renderError(ctx, out) {
    ctx.type = 'html';
    const details = Object.entries(out)
      .map(([key, value]) => `<p><strong>${escapeHtml(key)}</strong>: ${escapeHtml(String(value))}</p>`)
      .join('\n');
    ctx.body = layout('Sign-in error', details);
  },
  // `form` is oidc-provider's own hidden form (with its CSRF token); the buttons submit it.
  logoutSource(ctx, form) {
    ctx.body = layout('Sign out', `<p>Sign out of the development identity provider?</p>
${form}
<button autofocus type="submit" form="op.logoutForm" value="yes" name="logout">Sign out</button>
<button type="submit" form="op.logoutForm">Stay signed in</button>`);
  },
  postLogoutSuccessSource(ctx) {
    ctx.body = messagePage('Signed out', 'You have signed out of the development identity provider.');
  },
};
