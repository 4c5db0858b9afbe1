/** Editor leftovers (vim, Emacs, JetBrains' safe writes…) and hidden files are never content. */
export const isIgnored = (name: string) =>
    name.startsWith('.') ||
    name.endsWith('~') ||
    /\.(swp|swx|tmp|bak|orig)$/.test(name) ||
    /___jb_(tmp|old)___$/.test(name)
