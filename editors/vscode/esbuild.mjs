// Bundles src/extension.ts and its dependencies into dist/extension.js.
import * as esbuild from 'esbuild';

const watch = process.argv.includes('--watch');
const options = {
  entryPoints: ['src/extension.ts'],
  bundle: true,
  outfile: 'dist/extension.js',
  external: ['vscode'],
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: !process.argv.includes('--minify'),
  minify: process.argv.includes('--minify'),
  logLevel: 'info',
};
if (watch) {
  await (await esbuild.context(options)).watch();
} else {
  await esbuild.build(options);
}
