// The project's formatting (the style the code is written in): `npm run format` applies it.
export default {
  printWidth: 140,
  singleQuote: true,
  trailingComma: 'all',
  semi: true,
  arrowParens: 'always',
  // Template literals are output (html``, SQL): their whitespace is the program's, never reformatted.
  embeddedLanguageFormatting: 'off',
};
