/**
 * What in a dump names a person or a machine, found before anything is replaced (a name seen on
 * line 900 is hidden on line 1 too): home directories and the user names in them, the user and
 * host of shell prompts, and host names in the banners people paste above a backtrace.
 */

/**
 * A home directory at the start of a path: `/home/alice`, `/nfs/home/alice`, `/var/home/alice`,
 * `/Users/alice`, `/root`, `C:\Users\alice`. Group 1: the directory; group 2 (or 3): the user.
 * The character before must not continue a name (`/opt/xhome/…` is no home).
 */
export function homePattern(): RegExp {
  return /(?<![\w.~-])((?:\/[\w.+-]+)*?\/(?:home|Users|homes)\/([^/\\\s:'"()<>,;`*?|]+)|\/root(?=[/\\\s:'"()<>,;`]|$)|[A-Za-z]:\\(?:Users|Documents and Settings)\\([^\\/\s:'"()<>,;`*?|]+))/g;
}

/** A shell prompt: `alice@build-7:~/src$ gdb -p 4242`, `[alice@build-7 src]$`, `(venv) alice@mac ~ %`. */
const PROMPT = /^\s*(?:\([^)]*\)\s*)*\[?([A-Za-z_][\w.-]*)@([A-Za-z0-9][\w.-]*)(?=[\s:\]])[^\n]*?[$#%>]/;

/** `ssh alice@build-7.corp.example`, `alice@build-7.corp.example:/srv`: a user at a dotted host name. */
const userAtHost = (): RegExp => /(?<![\w.@-])([A-Za-z_][\w.-]*)@([A-Za-z0-9][\w-]*(?:\.[A-Za-z0-9][\w-]*)+)(?![\w@-])/g;

/** Banner lines that name the machine. */
const HOST_LINES: readonly RegExp[] = [
  // `coredumpctl info`: `      Hostname: build-7`; `hostnamectl`: `Static hostname: build-7`.
  /^\s*(?:Static |Transient )?(?:Host ?name|Host|Node ?name|Machine)\s*[:=]\s*([A-Za-z0-9][\w.-]*)\s*$/i,
  // `uname -a`: `Linux build-7 6.1.0-13-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.55-1 (2023-09-29) x86_64 GNU/Linux`.
  /^\s*(?:Linux|Darwin|FreeBSD|NetBSD|OpenBSD)\s+([A-Za-z0-9][\w.-]*)\s+\d+\.\d+/,
  // syslog / journal: `Dec 02 01:02:03 build-7 systemd-coredump[4242]: Process 4241 (app) … dumped core.`
  /^\s*(?:[A-Z][a-z]{2}\s+\d{1,2}\s+\d\d:\d\d:\d\d|\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d[\d.:+-]*Z?)\s+([A-Za-z0-9][\w.-]*)\s+[\w./@-]+(?:\[\d+\])?:/,
  // gdbserver: `Remote debugging from host 10.1.2.3, port 40000`, `Remote debugging using build-7:2345`.
  /Remote debugging (?:from host|using)\s+([A-Za-z0-9][\w.-]*?)(?::\d+|,|\s|$)/,
];

/**
 * Account names that say nothing about a person (CI runners, build users, distribution images):
 * their home directory is still hidden, but the word is left where it recurs (`runner`, `build`
 * and `test` are also ordinary words of code).
 */
const GENERIC_USERS = new Set([
  'root', 'user', 'users', 'runner', 'runneradmin', 'build', 'builder', 'buildd', 'abuild', 'mockbuild', 'pbuilder', 'ubuntu',
  'debian', 'admin', 'administrator', 'ec2-user', 'vagrant', 'jenkins', 'gitlab-runner', 'travis', 'circleci', 'docker', 'test',
  'tester', 'dev', 'developer', 'nobody', 'guest', 'shared', 'public', 'default', 'centos', 'fedora', 'opc', 'azureuser',
  'cloud-user', 'home', 'work', 'src', 'local', 'all', 'main', 'lib', 'bin', 'tmp',
]);

const GENERIC_HOSTS = new Set(['localhost', 'localhost.localdomain', '127.0.0.1', '0.0.0.0', 'host', 'localdomain']);

/** A word worth hiding where it recurs: a few letters at least, not a number, not a generic account. */
export function personal(word: string, generic: ReadonlySet<string>): boolean {
  return word.length >= 3 && /[A-Za-z]/.test(word) && !generic.has(word.toLowerCase());
}

export interface Found {
  /** Home directories' users in order of first appearance (`root` included): `<home>`, `<home#2>`, … */
  homes: string[];
  /** User names to hide wherever they recur, in order of first appearance: `<user>`, `<user#2>`, … */
  users: string[];
  /** Host names to hide wherever they recur (`<host>`, …); for a dotted name also its first label. */
  hosts: string[];
}

export function discover(lines: readonly string[]): Found {
  const homes: string[] = [];
  const users: string[] = [];
  const hosts: string[] = [];
  const addUser = (u: string): void => {
    if (personal(u, GENERIC_USERS) && !users.includes(u)) users.push(u);
  };
  const addHost = (h: string): void => {
    const host = h.replace(/\.+$/, '');
    if (GENERIC_HOSTS.has(host.toLowerCase()) || host.length < 2 || /^\d+$/.test(host)) return;
    if (!hosts.includes(host)) hosts.push(host);
    const label = host.split('.')[0] as string;
    // The short name of a dotted one recurs on its own (`build-7` of `build-7.corp.example`); not an IP's first octet.
    if (label !== host && !/^\d+$/.test(label) && personal(label, GENERIC_HOSTS) && !hosts.includes(label)) hosts.push(label);
  };
  const home = homePattern();
  for (const line of lines) {
    if (line.includes('/') || line.includes('\\')) {
      home.lastIndex = 0;
      for (let m = home.exec(line); m !== null; m = home.exec(line)) {
        const user = m[2] ?? m[3] ?? 'root';
        if (!homes.includes(user)) homes.push(user);
        addUser(user);
      }
    }
    if (line.includes('@')) {
      const prompt = PROMPT.exec(line);
      if (prompt) {
        addUser(prompt[1] as string);
        addHost(prompt[2] as string);
      }
      const at = userAtHost();
      for (let m = at.exec(line); m !== null; m = at.exec(line)) {
        addUser(m[1] as string);
        addHost(m[2] as string);
      }
    }
    for (const re of HOST_LINES) {
      const m = re.exec(line);
      if (m) addHost(m[1] as string);
    }
  }
  return { homes, users, hosts };
}
