<?php
// The page ./scripts/run.sh serves: proof that edge runs PHP through the
// php-fpm pool it supervises, over HTTPS, on its built-in configuration.
$https = ($_SERVER['HTTPS'] ?? '') === 'on';
?><!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>edge is serving PHP</title>
<link rel="stylesheet" href="/style.css">
</head>
<body>
<h1>edge is serving PHP</h1>
<table>
<tr><th>PHP</th><td><?= htmlspecialchars(PHP_VERSION) ?> (<?= htmlspecialchars(PHP_SAPI) ?>)</td></tr>
<tr><th>Server</th><td><?= htmlspecialchars($_SERVER['SERVER_SOFTWARE'] ?? '') ?></td></tr>
<tr><th>Scheme</th><td><?= $https ? 'HTTPS (' . htmlspecialchars($_SERVER['SSL_PROTOCOL'] ?? 'TLS') . ')' : 'HTTP' ?></td></tr>
<tr><th>Host</th><td><?= htmlspecialchars($_SERVER['HTTP_HOST'] ?? '') ?></td></tr>
<tr><th>Document root</th><td><?= htmlspecialchars($_SERVER['DOCUMENT_ROOT'] ?? '') ?></td></tr>
</table>
<p>Put your site in <code>public/</code> (or run <code>edge</code> in its directory),
or run an nginx configuration unchanged: <code>bin/edge -c /etc/nginx/nginx.conf -t</code>.</p>
</body>
</html>
