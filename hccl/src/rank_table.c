// SPDX-License-Identifier: MIT
/*
 * HcclCommInitClusterInfo: the vendor's rank table (JSON, version 1.0:
 * status "completed", server_count, server_list of server_id and its
 * device list of device_id and rank_id; device_ip and device_port are
 * optional). There is no root info to meet at, so rank 0 serves the
 * bootstrap at a place every rank derives from the table: HCCL_IF_IP, else
 * rank 0's server_id when it is an IPv4 address, else this host;
 * HCCL_IF_BASE_PORT, else 60000. The communicator's id is a hash of the
 * file, the same for every rank that read the same table.
 */
#include <arpa/inet.h>
#include <json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hccl_internal.h"

#define DEFAULT_PORT	60000
#define MAX_TABLE	(16 << 20)

struct table {
	uint32_t nranks;
	uint64_t hash;
	char server0[65];	/* rank 0's server_id */
};

/* A member that must be a string (the vendor writes numbers as strings). */
static const char *str_of(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static bool uint_of(json_object *o, const char *key, uint32_t *out)
{
	const char *s = str_of(o, key);
	char *end;
	unsigned long v;

	if (!s || !*s)
		return false;
	v = strtoul(s, &end, 10);
	if (*end || v > 65535)
		return false;
	*out = (uint32_t)v;
	return true;
}

static HcclResult bad(const char *path, const char *why)
{
	return hccl_fail("HcclCommInitClusterInfo", HCCL_E_PARA, "rank table %s: %s", path, why);
}

/* Counts the ranks, checking each appears once; rank 0's server noted. */
static HcclResult parse_servers(const char *path, json_object *list, struct table *t)
{
	size_t ns = json_object_array_length(list);
	uint8_t *seen = calloc(65536, 1);
	HcclResult err = HCCL_SUCCESS;
	uint32_t max = 0;

	if (!seen)
		return HCCL_FAIL(HCCL_E_MEMORY, "out of host memory");
	for (size_t i = 0; i < ns && !err; i++) {
		json_object *srv = json_object_array_get_idx(list, i), *devs;
		const char *id = str_of(srv, "server_id");

		if (!id || strlen(id) > 64)
			err = bad(path, "a server has no server_id of 1..64 characters");
		else if (!json_object_object_get_ex(srv, "device", &devs) ||
			 !json_object_is_type(devs, json_type_array))
			err = bad(path, "a server has no device list");
		for (size_t j = 0; !err && j < json_object_array_length(devs); j++) {
			json_object *d = json_object_array_get_idx(devs, j);
			uint32_t rank, dev;

			if (!uint_of(d, "rank_id", &rank) || !uint_of(d, "device_id", &dev))
				err = bad(path, "a device lacks a numeric device_id or rank_id");
			else if (seen[rank]++)
				err = bad(path, "a rank_id appears twice");
			else if (!rank)
				snprintf(t->server0, sizeof(t->server0), "%s", id);
			if (!err && rank + 1 > max)
				max = rank + 1;
			t->nranks += !err;
		}
	}
	if (!err && (!t->nranks || max != t->nranks))
		err = bad(path, "rank_ids are not 0 .. the number of devices - 1");
	free(seen);
	return err;
}

static HcclResult parse(const char *path, const char *text, struct table *t)
{
	json_object *root = json_tokener_parse(text), *list;
	const char *status, *version;
	uint32_t count;
	HcclResult err;

	if (!root || !json_object_is_type(root, json_type_object)) {
		json_object_put(root);
		return bad(path, "not a JSON object");
	}
	status = str_of(root, "status");
	version = str_of(root, "version");
	if (!status || strcmp(status, "completed"))
		err = bad(path, "status is not \"completed\"");
	else if (!version || strcmp(version, "1.0"))
		err = bad(path, "version is not \"1.0\" (the only one supported)");
	else if (!uint_of(root, "server_count", &count))
		err = bad(path, "server_count is missing or not a number");
	else if (!json_object_object_get_ex(root, "server_list", &list) ||
		 !json_object_is_type(list, json_type_array) ||
		 json_object_array_length(list) != count)
		err = bad(path, "server_list is not a list of server_count servers");
	else
		err = parse_servers(path, list, t);
	json_object_put(root);
	return err;
}

static char *read_table(const char *path, HcclResult *err)
{
	FILE *f = fopen(path, "re");
	char *text = NULL;
	long n;

	if (!f) {
		*err = HCCL_FAIL(HCCL_E_OPEN_FILE_FAILURE, "cannot open the rank table %s", path);
		return NULL;
	}
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && n <= MAX_TABLE &&
	    !fseek(f, 0, SEEK_SET) && (text = calloc(1, (size_t)n + 1)) &&
	    fread(text, 1, (size_t)n, f) != (size_t)n) {
		free(text);
		text = NULL;
	}
	fclose(f);
	if (!text)
		*err = HCCL_FAIL(HCCL_E_OPEN_FILE_FAILURE, "cannot read the rank table %s (at most "
				 "%d bytes)", path, MAX_TABLE);
	return text;
}

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 0x100000001b3ULL;
	return h ? h : 1;
}

static HcclResult init_cluster(const char *func, const char *path, uint32_t rank,
			       const HcclCommConfig *config, HcclComm *comm)
{
	struct table t = { 0 };
	struct hccl_root root;
	const char *ip = getenv("HCCL_IF_IP");
	struct in_addr a = { .s_addr = htonl(INADDR_LOOPBACK) };
	HcclResult err = HCCL_SUCCESS;
	char *text;

	if (!path || !comm)
		return hccl_fail(func, HCCL_E_PTR, "clusterInfo and comm must not be NULL");
	text = read_table(path, &err);
	if (!text)
		return err;
	err = parse(path, text, &t);
	t.hash = fnv1a(text);
	free(text);
	if (err)
		return err;
	if (rank >= t.nranks)
		return hccl_fail(func, HCCL_E_PARA, "rank %u is not in the rank table's %u", rank,
				 t.nranks);
	if (ip && *ip && inet_pton(AF_INET, ip, &a) != 1)
		return hccl_fail(func, HCCL_E_PARA, "HCCL_IF_IP=%s is not an IPv4 address", ip);
	if (!(ip && *ip) && inet_pton(AF_INET, t.server0, &a) != 1)
		a.s_addr = htonl(INADDR_LOOPBACK);
	hccl_root_fixed(&root, t.hash, a.s_addr,
			htons((uint16_t)hccl_env_long("HCCL_IF_BASE_PORT", DEFAULT_PORT, 1024,
						      65535)));
	if (!rank) {
		err = hccl_root_serve(&root);
		if (err)
			return err;
	}
	return hccl_comm_init(func, t.nranks, &root, rank, config, comm);
}

HCCL_EXPORT HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank,
					       HcclComm *comm)
{
	return init_cluster(__func__, clusterInfo, rank, NULL, comm);
}

HCCL_EXPORT HcclResult HcclCommInitClusterInfoConfig(const char *clusterInfo, uint32_t rank,
						     HcclCommConfig *config, HcclComm *comm)
{
	if (!config)
		return HCCL_FAIL(HCCL_E_PTR, "config is NULL");
	return init_cluster(__func__, clusterInfo, rank, config, comm);
}
