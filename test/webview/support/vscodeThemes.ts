// The four theme kinds as a VS Code 1.100 webview sees them: the body class VS Code sets and
// the `--vscode-*` variables it writes on <html>. Values are those of the built-in themes
// Dark Modern, Light Modern, Dark High Contrast and Light High Contrast (their theme files
// plus the colour registry's defaults for colours a theme leaves out, read from the
// code-server 4.100.3 build the end-to-end tests use). A colour that resolves to null in a
// theme is left out, as VS Code leaves it out. Only the variables the chat's CSS could read
// are listed, including ones it no longer uses, so an old rule would still meet real values.

export type ThemeKind = 'vscode-dark' | 'vscode-light' | 'vscode-high-contrast' | 'vscode-high-contrast-light';

export interface VsCodeTheme {
  /** File-name friendly label, e.g. for screenshots. */
  name: string;
  kind: ThemeKind;
  highContrast: boolean;
  variables: Record<string, string>;
  /**
   * The theme's own token colours for a few TextMate scopes (from its tokenColors), which
   * code in the chat should show as the editor does.
   */
  tokens: { keyword: string; string: string; comment: string; function: string; number: string };
}

const fonts = {
  'font-family': 'system-ui, "Ubuntu", "Droid Sans", sans-serif',
  'font-size': '13px',
  'editor-font-family': '"Droid Sans Mono", "monospace", monospace',
  'editor-font-size': '14px',
};

/** Symbol icon and debug token colours, which differ per kind only through their defaults. */
function registryTokenColours(kind: 'dark' | 'light' | 'hc', foreground: string, string: string, number: string): Record<string, string> {
  const dark = kind !== 'light';
  return {
    'symbolIcon-keywordForeground': foreground,
    'symbolIcon-namespaceForeground': foreground,
    'symbolIcon-functionForeground': dark ? '#B180D7' : '#652D90',
    'symbolIcon-classForeground': dark ? '#EE9D28' : '#D67E00',
    'symbolIcon-variableForeground': dark ? '#75BEFF' : '#007ACC',
    'debugTokenExpression-name': kind === 'hc' ? foreground : dark ? '#c586c0' : '#9b46b0',
    'debugTokenExpression-string': string,
    'debugTokenExpression-number': number,
  };
}

export const DARK_MODERN: VsCodeTheme = {
  name: 'dark-modern',
  kind: 'vscode-dark',
  highContrast: false,
  variables: {
    ...fonts,
    foreground: '#cccccc',
    descriptionForeground: '#9d9d9d',
    errorForeground: '#f85149',
    focusBorder: '#0078d4',
    'editor-foreground': '#cccccc',
    'editor-background': '#1f1f1f',
    'sideBar-background': '#181818',
    'textCodeBlock-background': '#2b2b2b',
    'textPreformat-foreground': '#d0d0d0',
    'textPreformat-background': '#3c3c3c',
    'textLink-foreground': '#4daafc',
    'textLink-activeForeground': '#4daafc',
    'textBlockQuote-background': '#2b2b2b',
    'textBlockQuote-border': '#616161',
    'panel-border': '#2b2b2b',
    'widget-shadow': 'rgba(0, 0, 0, 0.36)',
    'editorWidget-background': '#202020',
    'editorWidget-foreground': '#cccccc',
    'editorWidget-border': '#454545',
    'input-background': '#313131',
    'input-foreground': '#cccccc',
    'input-border': '#3c3c3c',
    'input-placeholderForeground': '#989898',
    'inputValidation-errorBackground': '#5a1d1d',
    'inputValidation-errorBorder': '#be1100',
    'button-background': '#0078d4',
    'button-foreground': '#ffffff',
    'button-border': 'rgba(255, 255, 255, 0.07)',
    'button-hoverBackground': '#026ec1',
    'button-secondaryBackground': '#313131',
    'button-secondaryForeground': '#cccccc',
    'button-secondaryHoverBackground': '#3c3c3c',
    'badge-background': '#616161',
    'badge-foreground': '#f8f8f8',
    'scrollbarSlider-background': 'rgba(121, 121, 121, 0.4)',
    ...registryTokenColours('dark', '#cccccc', '#ce9178', '#b5cea8'),
  },
  tokens: { keyword: '#569cd6', string: '#ce9178', comment: '#6a9955', function: '#dcdcaa', number: '#b5cea8' },
};

export const LIGHT_MODERN: VsCodeTheme = {
  name: 'light-modern',
  kind: 'vscode-light',
  highContrast: false,
  variables: {
    ...fonts,
    foreground: '#3b3b3b',
    descriptionForeground: '#3b3b3b',
    errorForeground: '#f85149',
    focusBorder: '#005fb8',
    'editor-foreground': '#3b3b3b',
    'editor-background': '#ffffff',
    'sideBar-background': '#f8f8f8',
    'textCodeBlock-background': '#f8f8f8',
    'textPreformat-foreground': '#3b3b3b',
    'textPreformat-background': 'rgba(0, 0, 0, 0.12)',
    'textLink-foreground': '#005fb8',
    'textLink-activeForeground': '#005fb8',
    'textBlockQuote-background': '#f8f8f8',
    'textBlockQuote-border': '#e5e5e5',
    'panel-border': '#e5e5e5',
    'widget-shadow': 'rgba(0, 0, 0, 0.16)',
    'editorWidget-background': '#f8f8f8',
    'editorWidget-foreground': '#3b3b3b',
    'editorWidget-border': '#c8c8c8',
    'input-background': '#ffffff',
    'input-foreground': '#3b3b3b',
    'input-border': '#cecece',
    'input-placeholderForeground': '#767676',
    'inputValidation-errorBackground': '#f2dede',
    'inputValidation-errorBorder': '#be1100',
    'button-background': '#005fb8',
    'button-foreground': '#ffffff',
    'button-border': 'rgba(0, 0, 0, 0.1)',
    'button-hoverBackground': '#0258a8',
    'button-secondaryBackground': '#e5e5e5',
    'button-secondaryForeground': '#3b3b3b',
    'button-secondaryHoverBackground': '#cccccc',
    'badge-background': '#cccccc',
    'badge-foreground': '#3b3b3b',
    'scrollbarSlider-background': 'rgba(100, 100, 100, 0.4)',
    ...registryTokenColours('light', '#3b3b3b', '#a31515', '#098658'),
  },
  tokens: { keyword: '#0000ff', string: '#a31515', comment: '#008000', function: '#795e26', number: '#098658' },
};

export const DARK_HIGH_CONTRAST: VsCodeTheme = {
  name: 'dark-high-contrast',
  kind: 'vscode-high-contrast',
  highContrast: true,
  variables: {
    ...fonts,
    foreground: '#ffffff',
    descriptionForeground: 'rgba(255, 255, 255, 0.7)',
    errorForeground: '#f48771',
    focusBorder: '#f38518',
    contrastBorder: '#6fc3df',
    contrastActiveBorder: '#f38518',
    'editor-foreground': '#ffffff',
    'editor-background': '#000000',
    'sideBar-background': '#000000',
    'textCodeBlock-background': '#000000',
    // The inline-code pair is inverted in high contrast: black text on a white chip.
    'textPreformat-foreground': '#000000',
    'textPreformat-background': '#ffffff',
    'textLink-foreground': '#21a6ff',
    'textLink-activeForeground': '#21a6ff',
    'textBlockQuote-border': '#ffffff',
    'panel-border': '#6fc3df',
    'editorWidget-background': '#0c141f',
    'editorWidget-foreground': '#ffffff',
    'editorWidget-border': '#6fc3df',
    'input-background': '#000000',
    'input-foreground': '#ffffff',
    'input-border': '#6fc3df',
    'input-placeholderForeground': 'rgba(255, 255, 255, 0.7)',
    'inputValidation-errorBackground': '#000000',
    'inputValidation-errorBorder': '#6fc3df',
    'button-foreground': '#ffffff',
    'button-border': '#6fc3df',
    'button-secondaryForeground': '#ffffff',
    'badge-background': '#000000',
    'badge-foreground': '#ffffff',
    'scrollbarSlider-background': 'rgba(111, 195, 223, 0.6)',
    ...registryTokenColours('hc', '#ffffff', '#f48771', '#89d185'),
  },
  tokens: { keyword: '#569cd6', string: '#ce9178', comment: '#7ca668', function: '#dcdcaa', number: '#b5cea8' },
};

export const LIGHT_HIGH_CONTRAST: VsCodeTheme = {
  name: 'light-high-contrast',
  // VS Code also adds `vscode-high-contrast` to the body for this kind (backwards
  // compatibility), so a rule for dark high contrast must not win here.
  kind: 'vscode-high-contrast-light',
  highContrast: true,
  variables: {
    ...fonts,
    foreground: '#292929',
    descriptionForeground: 'rgba(41, 41, 41, 0.7)',
    errorForeground: '#b5200d',
    focusBorder: '#006bbd',
    contrastBorder: '#0f4a85',
    contrastActiveBorder: '#006bbd',
    'editor-foreground': '#292929',
    'editor-background': '#ffffff',
    'sideBar-background': '#ffffff',
    'textCodeBlock-background': '#f2f2f2',
    // Inverted too: white text on a dark blue chip.
    'textPreformat-foreground': '#ffffff',
    'textPreformat-background': '#09345f',
    'textLink-foreground': '#0f4a85',
    'textLink-activeForeground': '#0f4a85',
    'textBlockQuote-background': '#f2f2f2',
    'textBlockQuote-border': '#292929',
    'panel-border': '#0f4a85',
    'editorWidget-background': '#ffffff',
    'editorWidget-foreground': '#292929',
    'editorWidget-border': '#0f4a85',
    'input-background': '#ffffff',
    'input-foreground': '#292929',
    'input-border': '#0f4a85',
    'input-placeholderForeground': 'rgba(41, 41, 41, 0.7)',
    'inputValidation-errorBackground': '#ffffff',
    'inputValidation-errorBorder': '#0f4a85',
    'button-background': '#0f4a85',
    'button-foreground': '#ffffff',
    'button-border': '#0f4a85',
    'button-hoverBackground': '#0f4a85',
    'button-secondaryBackground': '#ffffff',
    'button-secondaryForeground': '#292929',
    'badge-background': '#0f4a85',
    'badge-foreground': '#ffffff',
    'scrollbarSlider-background': 'rgba(15, 74, 133, 0.4)',
    ...registryTokenColours('hc', '#292929', '#a31515', '#098658'),
  },
  tokens: { keyword: '#0f4a85', string: '#0f4a85', comment: '#515151', function: '#5e2cbc', number: '#096d48' },
};

export const THEMES: readonly VsCodeTheme[] = [DARK_MODERN, LIGHT_MODERN, DARK_HIGH_CONTRAST, LIGHT_HIGH_CONTRAST];

/**
 * What VS Code's webview host does on load and on every theme change (pre/index.html
 * `applyStyles`): body classes and `data-vscode-theme-kind`, variables on <html>. Runs in
 * the page; CSSOM writes are allowed under the webview's CSP.
 */
export const APPLY_THEME_IN_PAGE = `(theme) => {
  const body = document.body;
  body.classList.remove('vscode-light', 'vscode-dark', 'vscode-high-contrast', 'vscode-high-contrast-light');
  body.classList.add(theme.kind);
  if (theme.kind === 'vscode-high-contrast-light') body.classList.add('vscode-high-contrast');
  body.dataset.vscodeThemeKind = theme.kind;
  const style = document.documentElement.style;
  for (let i = style.length - 1; i >= 0; i--) if (style[i].startsWith('--vscode-')) style.removeProperty(style[i]);
  for (const [name, value] of Object.entries(theme.variables)) style.setProperty('--vscode-' + name, value);
}`;
